import { migratedSchemaForTheseTests } from '@gateway/testkit';
import { pixAdapterDatabase } from '../src/persistence';

describe('a payout moves only forward and is frozen once settled', () => {
  const schema = migratedSchemaForTheseTests(pixAdapterDatabase);
  let sequence = 0;

  async function payout(status = 'requested', idEnvio?: string): Promise<string> {
    sequence += 1;
    const id = `po_final${sequence}x${Date.now()}`;
    await schema.dataSource.query(
      `INSERT INTO payouts (payout_id, business_id, id_envio, amount_centavos, pix_key, pix_key_type, holder_document,
                            status, correlation_id, requested_at)
       VALUES ($1, 'biz_x', $2, 1000, '12345678909', 'cpf', '12345678909', $3, 'corr', now())`,
      [id, idEnvio ?? `E${sequence}x${Date.now()}`, status],
    );
    return id;
  }
  const update = (id: string, set: string) =>
    schema.dataSource.query(`UPDATE payouts SET ${set} WHERE payout_id = $1`, [id]);
  const refused = { driverError: expect.objectContaining({ code: '23514' }) };
  const paid = `status = 'paid', end_to_end_id = 'E1234567820250101120000000000001', settled_at = now()`;

  test('a payout starts requested, may become processing, then paid; never back', async () => {
    const id = await payout();
    await update(id, `status = 'processing', end_to_end_id = 'E1234567820250101120000000000001'`);
    await expect(update(id, `status = 'requested'`)).rejects.toMatchObject(refused);
    await update(id, `status = 'paid', settled_at = now()`);
    const [row] = await schema.dataSource.query('SELECT status FROM payouts WHERE payout_id = $1', [id]);
    expect(row).toEqual({ status: 'paid' });
  });

  test.each([
    ['paid', paid],
    ['failed', `status = 'failed', failure_reason = 'O PSP recusou o envio', settled_at = now()`],
  ])('a payout %s keeps its outcome, amount and reason, and is never deleted', async (_status, settle) => {
    const id = await payout();
    await update(id, settle);
    for (const change of [
      `status = 'processing'`,
      `status = 'requested', settled_at = NULL, failure_reason = NULL`,
      'amount_centavos = 1',
      `failure_reason = 'other'`,
      `end_to_end_id = 'E9999999920250101120000000000001'`,
      'claimed_until = now()',
      'attempts = attempts + 1',
    ])
      await expect(update(id, change)).rejects.toMatchObject(refused);
    await expect(
      schema.dataSource.query('DELETE FROM payouts WHERE payout_id = $1', [id]),
    ).rejects.toMatchObject(refused);
  });

  test('a payout cannot start settled, be paid without its PIX, fail without a reason, or reuse an idEnvio', async () => {
    await expect(payout('paid')).rejects.toMatchObject(refused);
    await expect(payout('processing')).rejects.toMatchObject(refused);
    const open = await payout();
    await expect(update(open, `status = 'paid', settled_at = now()`)).rejects.toMatchObject(refused);
    await expect(update(open, `status = 'failed', settled_at = now()`)).rejects.toMatchObject(refused);
    await expect(update(open, `status = 'failed', failure_reason = 'x'`)).rejects.toMatchObject(refused);
    await expect(update(open, 'amount_centavos = 0')).rejects.toMatchObject(refused);
    await payout('requested', 'SameIdEnvio');
    await expect(payout('requested', 'SameIdEnvio')).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23505' }),
    });
  });
});
