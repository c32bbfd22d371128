import {
  changeCryptoRequestAmount,
  cryptoRequestClosed,
  cryptoRequestSettled,
  newPublicId,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { untilAnsweredOk } from '@gateway/testkit';
import { parseTransferRequestUrl } from '../src/domain/solana-pay';
import { WatcherHarness } from './support/watcher';

describe('crypto.request.change-amount.v1', () => {
  const harness = WatcherHarness.forTheseTests();

  const openRequests = async (paymentId: string): Promise<string[]> => {
    const rows: Array<{ reference: string }> = await harness.service.dataSource.query(
      `SELECT reference FROM payment_requests WHERE payment_id = $1 AND status = 'open'`,
      [paymentId],
    );
    return rows.map((row) => row.reference);
  };

  test('a new amount gets a new reference, link, QR code and window; the old request is superseded', async () => {
    const original = await harness.open({ amount_centavos: 10_000, token: 'usdc' });
    const reply = await harness.changeAmount(original.payment_id, 5_000);
    if (!reply.ok) throw new Error(reply.error.message);
    const changed = reply.result;
    expect(changed.reference).not.toBe(original.reference);
    expect(changed).toMatchObject({ currency: 'usdc', amount_base_units: '9000000' });
    expect(changed.qr_code).not.toBe(original.qr_code);
    expect(Date.parse(changed.expires_at)).toBeGreaterThanOrEqual(Date.parse(original.expires_at));
    expect(parseTransferRequestUrl(changed.payment_link, 6)).toMatchObject({
      amount: 9_000_000n,
      references: [changed.reference],
      splToken: harness.localnet.mints.USDC,
    });
    expect((await harness.request(original.reference)).status).toBe('superseded');
    expect(await openRequests(original.payment_id)).toEqual([changed.reference]);
  });

  test('a transfer still arriving on the superseded reference is recorded as such and pays nothing', async () => {
    const original = await harness.open();
    const reply = await harness.changeAmount(original.payment_id, 20_000);
    if (!reply.ok) throw new Error(reply.error.message);
    const signature = await harness.pay(original.reference, BigInt(original.amount_base_units));
    const [transfer] = await harness.waitForTransfers(original.reference, 1);
    expect(transfer).toMatchObject({ signature, applied_to: 'superseded' });
    expect(await harness.request(reply.result.reference)).toMatchObject({
      status: 'open',
      received_base_units: '0',
    });
    // Recorded in the same transaction as anything it would have settled or closed.
    expect(await harness.emitted(cryptoRequestSettled.name, original.payment_id)).toBe(0);
    expect(await harness.emitted(cryptoRequestClosed.name, original.payment_id)).toBe(0);
  });

  test('changing the amount of a settled payment is refused with INVALID_STATUS', async () => {
    const request = await harness.open();
    await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.settled(request.payment_id);
    const reply = await harness.changeAmount(request.payment_id, 500);
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('settled') },
    });
  });

  test('changing the amount of an unknown payment is refused with NOT_FOUND', async () => {
    const reply = await harness.changeAmount(newPublicId('pay'), 500);
    expect(reply).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  test('when the same command is delivered twice, the amount changes once and both replies are the same', async () => {
    const original = await harness.open();
    const messageId = newPublicId('cmd');
    const first = await harness.changeAmount(original.payment_id, 7_000, { messageId });
    const second = await harness.changeAmount(original.payment_id, 7_000, { messageId });
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    const rows: unknown[] = await harness.service.dataSource.query(
      'SELECT 1 FROM payment_requests WHERE payment_id = $1',
      [original.payment_id],
    );
    expect(rows).toHaveLength(2);
  });

  test('a poison message is parked and answered with INTERNAL_ERROR instead of being retried forever', async () => {
    const original = await harness.open();
    const envelope = createEnvelope(changeCryptoRequestAmount, {
      payment_id: original.payment_id,
      business_name: 'Padaria Pão Quente',
      amount_centavos: 3_000,
    });
    const broken = { ...envelope, payload: { ...envelope.payload, amount_centavos: 12.5 } };
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await harness.parkedCommands();
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('amount_centavos') }),
    ]);
    expect(await openRequests(original.payment_id)).toEqual([original.reference]);
  });

  test('after the watcher loses its broker connection it reconnects and serves commands again', async () => {
    const original = await harness.open();
    harness.service.broker.dropConnectionForTesting();
    const reply = await untilAnsweredOk(() =>
      harness.changeAmount(original.payment_id, 4_000, {
        timeoutMs: 1000,
        messageId: `retry-${original.payment_id}`,
      }),
    );
    expect(reply.ok).toBe(true);
    expect(await openRequests(original.payment_id)).toEqual([reply.ok && reply.result.reference]);
  });
});
