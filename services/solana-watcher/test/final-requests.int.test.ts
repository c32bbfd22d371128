import { migratedSchemaForTheseTests } from '@gateway/testkit';
import { solanaWatcherDatabase } from '../src/persistence';

describe('a crypto payment request in a final status never changes', () => {
  const schema = migratedSchemaForTheseTests(solanaWatcherDatabase);

  async function openRequest(reference: string): Promise<void> {
    await schema.dataSource.query(
      `INSERT INTO payment_requests (reference, payment_id, token, mint, amount_base_units, decimals, quote_rate,
                                     quote_source, quote_at, payment_link, expires_at, status, correlation_id)
       VALUES ($1, $2, 'usdc', 'mint', 1000000, 6, '5.0', 'test', now(), 'solana:x', now() + interval '1 hour',
               'open', 'corr')`,
      [reference, `pay_${reference}`],
    );
  }
  const update = (reference: string, set: string) =>
    schema.dataSource.query(`UPDATE payment_requests SET ${set} WHERE reference = $1`, [reference]);

  test.each(['settled', 'expired', 'underpaid', 'failed', 'superseded'])(
    'a request that became %s keeps its status, amount, quote, window and what it received',
    async (finalStatus) => {
      const reference = `ref${finalStatus}${Date.now()}`;
      await openRequest(reference);
      await update(reference, 'received_base_units = 400000');
      await update(reference, `status = '${finalStatus}'`);

      for (const change of [
        `status = 'open'`,
        `status = 'settled'`,
        'amount_base_units = 1',
        'received_base_units = 1000000',
        `settled_signature = 'sig'`,
      ]) {
        if (change.includes(`'${finalStatus}'`)) continue;
        await expect(update(reference, change)).rejects.toMatchObject({
          driverError: expect.objectContaining({ code: '23514' }),
        });
      }
      for (const change of [`expires_at = now()`, `quote_rate = '9.9'`, `payment_link = 'solana:y'`]) {
        await expect(update(reference, change)).rejects.toMatchObject({
          driverError: expect.objectContaining({ code: '23514' }),
        });
      }
      const [row] = await schema.dataSource.query(
        'SELECT status, received_base_units::text AS received FROM payment_requests WHERE reference = $1',
        [reference],
      );
      expect(row).toEqual({ status: finalStatus, received: '400000' });
    },
  );

  test('a column added to payment_requests after the guard is frozen on a final request', async () => {
    const reference = `refadded${Date.now()}`;
    await openRequest(reference);
    await update(reference, `status = 'settled'`);
    await schema.dataSource.query(
      'ALTER TABLE payment_requests ADD COLUMN IF NOT EXISTS added_after_the_guard text',
    );
    await expect(update(reference, `added_after_the_guard = 'x'`)).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23514' }),
    });
  });

  test('the database refuses to delete a final request, and still deletes an open one', async () => {
    const [finalReference, openReference] = [`refdelfinal${Date.now()}`, `refdelopen${Date.now()}`];
    await openRequest(finalReference);
    await openRequest(openReference);
    await update(finalReference, `status = 'expired'`);
    await expect(
      schema.dataSource.query('DELETE FROM payment_requests WHERE reference = $1', [finalReference]),
    ).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '23514' }) });
    const [, deleted] = await schema.dataSource.query('DELETE FROM payment_requests WHERE reference = $1', [
      openReference,
    ]);
    expect(deleted).toBe(1);
  });
});
