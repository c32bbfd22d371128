import { migratedSchemaForTheseTests } from '@gateway/testkit';
import { pixAdapterDatabase } from '../src/persistence';

describe('a PIX charge in a final status never changes', () => {
  const schema = migratedSchemaForTheseTests(pixAdapterDatabase);

  async function activeCharge(txid: string): Promise<void> {
    await schema.dataSource.query(
      `INSERT INTO charges (txid, payment_id, amount_centavos, status, revisao, location, merchant_name,
                            copia_e_cola, qr_code, expires_at)
       VALUES ($1, $2, 10000, 'active', 0, 'loc', 'Loja', 'brcode', 'qr', now() + interval '1 hour')`,
      [txid, `pay_${txid}`],
    );
  }
  const update = (txid: string, set: string) =>
    schema.dataSource.query(`UPDATE charges SET ${set} WHERE txid = $1`, [txid]);

  test.each(['paid', 'expired', 'failed', 'cancelled'])(
    'a charge that became %s keeps its status, amount, payer and BR Code; its updated_at and claim may still move',
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
      for (const change of [`expires_at = now()`, `copia_e_cola = 'other'`, `created_at = now()`]) {
        await expect(update(txid, change)).rejects.toMatchObject({
          driverError: expect.objectContaining({ code: '23514' }),
        });
      }
      await update(txid, `updated_at = now(), claimed_until = NULL`);
      const [row] = await schema.dataSource.query(
        'SELECT status, amount_centavos::int AS amount FROM charges WHERE txid = $1',
        [txid],
      );
      expect(row).toEqual({ status: finalStatus, amount: 20000 });
    },
  );

  test('a column added to charges after the guard is frozen on a final charge', async () => {
    const txid = `txadded${Date.now()}`;
    await activeCharge(txid);
    await update(txid, `status = 'paid', paid_end_to_end_id = 'E1'`);
    await schema.dataSource.query('ALTER TABLE charges ADD COLUMN IF NOT EXISTS added_after_the_guard text');
    await expect(update(txid, `added_after_the_guard = 'x'`)).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23514' }),
    });
  });

  test('the database refuses to delete a final charge, and still deletes an active one', async () => {
    const [finalTxid, activeTxid] = [`txdelfinal${Date.now()}`, `txdelactive${Date.now()}`];
    await activeCharge(finalTxid);
    await activeCharge(activeTxid);
    await update(finalTxid, `status = 'expired'`);
    await expect(
      schema.dataSource.query('DELETE FROM charges WHERE txid = $1', [finalTxid]),
    ).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23514' }),
    });
    const [, deleted] = await schema.dataSource.query('DELETE FROM charges WHERE txid = $1', [activeTxid]);
    expect(deleted).toBe(1);
  });
});
