import { migratedSchemaForTheseTests } from '@gateway/testkit';
import { pixAdapterDatabase } from '../src/persistence';

describe('a PIX refund moves only forward and is frozen once settled', () => {
  const schema = migratedSchemaForTheseTests(pixAdapterDatabase);
  let sequence = 0;

  async function refund(status = 'requested', failureReason: string | null = null): Promise<string> {
    sequence += 1;
    const id = `ref_final${sequence}x${Date.now()}`;
    await schema.dataSource.query(
      `INSERT INTO pix_refunds (refund_id, payment_id, end_to_end_id, devolucao_id, amount_centavos, status,
                                failure_reason, correlation_id)
       VALUES ($1, 'pay_x', 'E1234567820250101120000000000001', $2, 1000, $3, $4, 'corr')`,
      [id, `D${sequence}x${Date.now()}`, status, failureReason],
    );
    return id;
  }
  const update = (id: string, set: string) =>
    schema.dataSource.query(`UPDATE pix_refunds SET ${set} WHERE refund_id = $1`, [id]);
  const refused = { driverError: expect.objectContaining({ code: '23514' }) };

  test('a refund starts requested, may become processing, then succeeded; never back', async () => {
    const id = await refund();
    await update(id, `status = 'processing'`);
    await expect(update(id, `status = 'requested'`)).rejects.toMatchObject(refused);
    await update(id, `status = 'succeeded'`);
    const [row] = await schema.dataSource.query('SELECT status FROM pix_refunds WHERE refund_id = $1', [id]);
    expect(row).toEqual({ status: 'succeeded' });
  });

  test.each([
    ['succeeded', null],
    ['failed', 'O PSP recusou a devolução'],
  ])('a refund %s keeps its outcome, amount and reason, and is never deleted', async (status, reason) => {
    const id = await refund();
    await update(id, `status = '${status}', failure_reason = ${reason === null ? 'NULL' : `'${reason}'`}`);
    for (const change of [
      `status = 'processing'`,
      `status = '${status === 'failed' ? 'succeeded' : 'failed'}', failure_reason = 'x'`,
      'amount_centavos = 1',
      `failure_reason = 'other'`,
      'claimed_until = now()',
    ])
      await expect(update(id, change)).rejects.toMatchObject(refused);
    await expect(
      schema.dataSource.query('DELETE FROM pix_refunds WHERE refund_id = $1', [id]),
    ).rejects.toMatchObject(refused);
  });

  test('a refund cannot start settled or processing, nor fail without a reason, nor succeed with one', async () => {
    await expect(refund('succeeded')).rejects.toMatchObject(refused);
    await expect(refund('processing')).rejects.toMatchObject(refused);
    await expect(refund('failed')).rejects.toMatchObject(refused);
    const id = await refund('failed', 'Nenhum PIX recebido');
    expect(id).toMatch(/^ref_/);
    const open = await refund();
    await expect(update(open, `status = 'succeeded', failure_reason = 'x'`)).rejects.toMatchObject(refused);
  });
});
