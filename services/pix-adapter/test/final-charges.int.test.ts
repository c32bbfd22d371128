import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { createTestDatabase, type TestDatabase } from '@gateway/testkit';
import { pixAdapterDatabase } from '../src/persistence';

describe('a PIX charge in a final status never changes', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await openServiceDatabase({ url: database.url, ...pixAdapterDatabase });
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  async function activeCharge(txid: string): Promise<void> {
    await dataSource.query(
      `INSERT INTO charges (txid, payment_id, amount_centavos, status, revisao, location, merchant_name,
                            copia_e_cola, qr_code, expires_at)
       VALUES ($1, $2, 10000, 'active', 0, 'loc', 'Loja', 'brcode', 'qr', now() + interval '1 hour')`,
      [txid, `pay_${txid}`],
    );
  }
  const update = (txid: string, set: string) =>
    dataSource.query(`UPDATE charges SET ${set} WHERE txid = $1`, [txid]);

  test.each(['paid', 'expired', 'failed'])(
    'a charge that became %s keeps its status, amount and payer; its timestamps may still move',
    async (finalStatus) => {
      const txid = `tx${finalStatus}${Date.now()}`;
      await activeCharge(txid);
      await update(txid, 'amount_centavos = 20000, revisao = 1');
      await update(txid, `status = '${finalStatus}', paid_end_to_end_id = 'E1'`);

      for (const change of [
        `status = 'active'`,
        `status = 'paid'`,
        'amount_centavos = 1',
        'revisao = 2',
        `paid_end_to_end_id = 'E2'`,
      ]) {
        if (change.includes(`'${finalStatus}'`)) continue;
        await expect(update(txid, change)).rejects.toMatchObject({
          driverError: expect.objectContaining({ code: '23514' }),
        });
      }
      await update(txid, `updated_at = now(), expires_at = now()`);
      const [row] = await dataSource.query(
        'SELECT status, amount_centavos::int AS amount FROM charges WHERE txid = $1',
        [txid],
      );
      expect(row).toEqual({ status: finalStatus, amount: 20000 });
    },
  );
});
