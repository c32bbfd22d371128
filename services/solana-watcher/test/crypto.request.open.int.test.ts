import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { createEnvelope } from '@gateway/messaging';
import { newPublicId, openCryptoRequest } from '@gateway/contracts';
import { untilAnsweredOk, waitFor } from '@gateway/testkit';
import { tokenBaseUnitsForBrl } from '../src/domain/quote';
import { parseRatio } from '../src/domain/rational';
import { parseTransferRequestUrl } from '../src/domain/solana-pay';
import { WatcherHarness } from './support/watcher';

function decodeQrDataUri(dataUri: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUri.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('crypto.request.open.v1', () => {
  const harness = WatcherHarness.forTheseTests();

  const countRequests = async (paymentId: string): Promise<number> => {
    const rows = await harness.service.dataSource.query(
      'SELECT count(*)::int AS n FROM payment_requests WHERE payment_id = $1',
      [paymentId],
    );
    return rows[0].n;
  };

  test('opens a Solana Pay request for the quoted token amount, with its QR code and a 30-minute window', async () => {
    const command = harness.openCommand({ amount_centavos: 12_345, token: 'eurc' });
    const before = Date.now();
    const reply = await harness.bed.request(openCryptoRequest, command);
    if (!reply.ok) throw new Error(reply.error.message);
    const result = reply.result;
    // R$ 123,45 at 0.16 EURC per BRL = 19.752 EURC
    expect(result).toMatchObject({
      currency: 'eurc',
      network: 'solana',
      wallet_address: harness.localnet.receivingWallet.toBase58(),
      amount_base_units: '19752000',
      decimals: 6,
    });

    const link = parseTransferRequestUrl(result.payment_link, 6);
    expect(link).toEqual({
      recipient: harness.localnet.receivingWallet.toBase58(),
      amount: 19_752_000n,
      splToken: harness.localnet.mints.EURC,
      references: [result.reference],
      label: 'Padaria Pão Quente',
      message: `Pagamento ${command.payment_id}`,
    });
    expect(result.qr_code).toMatch(/^data:image\/png;base64,/);
    expect(decodeQrDataUri(result.qr_code)).toBe(result.payment_link);

    const expiresAt = Date.parse(result.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 60_000);

    const stored = await harness.request(result.reference);
    expect(stored).toMatchObject({
      payment_id: command.payment_id,
      status: 'open',
      amount_base_units: '19752000',
      received_base_units: '0',
      quote_source: 'fixed',
    });
    expect(tokenBaseUnitsForBrl(command.amount_centavos, parseRatio(stored.quote_rate))).toBe(19_752_000n);
    expect(stored.quote_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.expires_at.toISOString()).toBe(result.expires_at);
  });

  test('rounds a token amount with more than 6 decimals up to the next base unit', async () => {
    const request = await harness.open({ amount_centavos: 101, token: 'usdt' });
    // R$ 1,01 at 0.18345671 USDT per BRL = 0.1852912771 USDT
    expect(request.amount_base_units).toBe('185292');
  });

  test('each payment gets its own reference', async () => {
    const first = await harness.open();
    const second = await harness.open();
    expect(first.reference).not.toBe(second.reference);
  });

  test('opening again a payment that has an open request returns that same request', async () => {
    const command = harness.openCommand();
    const first = await harness.bed.request(openCryptoRequest, command);
    const again = await harness.bed.request(openCryptoRequest, command);
    expect(again.ok && first.ok && again.result.reference).toBe(first.ok && first.result.reference);
    expect(await countRequests(command.payment_id)).toBe(1);
  });

  test('opening a payment whose request already settled is refused with INVALID_STATUS', async () => {
    const request = await harness.open();
    await harness.pay(request.reference, BigInt(request.amount_base_units));
    await waitFor(async () => (await harness.request(request.reference)).status === 'settled', {
      what: 'the settlement',
    });
    const reply = await harness.bed.request(
      openCryptoRequest,
      harness.openCommand({ payment_id: request.payment_id }),
    );
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('settled') },
    });
  });

  test('when the same command is delivered twice, one request is opened and both replies are the same', async () => {
    const command = harness.openCommand();
    const messageId = newPublicId('cmd');
    const first = await harness.bed.request(openCryptoRequest, command, { messageId });
    const second = await harness.bed.request(openCryptoRequest, command, { messageId });
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    expect(await countRequests(command.payment_id)).toBe(1);
  });

  test('a poison message is parked and answered with INTERNAL_ERROR instead of being retried forever', async () => {
    const envelope = createEnvelope(openCryptoRequest, harness.openCommand());
    const broken = { ...envelope, payload: { ...envelope.payload, token: 'btc' } };
    const reply = harness.bed.request(openCryptoRequest, harness.openCommand());
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await harness.parkedCommands();
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('token') }),
    ]);
    expect((await reply).ok).toBe(true);
    expect(await countRequests(envelope.payload.payment_id)).toBe(0);
  });

  test('after the watcher loses its broker connection it reconnects and serves commands again', async () => {
    harness.service.broker.dropConnectionForTesting();
    const command = harness.openCommand();
    const reply = await untilAnsweredOk(() =>
      harness.bed.request(openCryptoRequest, command, {
        timeoutMs: 1000,
        messageId: `retry-${command.payment_id}`,
      }),
    );
    expect(reply.ok).toBe(true);
    expect(await countRequests(command.payment_id)).toBe(1);
  });
});
