import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import {
  changePixChargeAmount,
  newPublicId,
  openPixCharge,
  simulatePixOutcome,
  type MessageDefinition,
  type OpenPixCharge,
  type PixCharge,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { startSandboxPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import { fetchPayload } from '@gateway/psp-simulator/test/support/payload-location';
import {
  connectTestClient,
  serviceTestBed,
  testLogger,
  untilAnsweredOk,
  waitFor,
  waitForParkedMessages,
  type ServiceTestBed,
} from '@gateway/testkit';
import { loadPixAdapterConfig } from '../src/config';
import { startPixAdapter, type PixAdapter } from '../src/main';
import { sandboxPayer } from './support/sandbox-payer';

describe('PIX adapter against the PSP simulator', () => {
  let bed: ServiceTestBed<PixAdapter>;
  let psp: RunningPspSimulator;

  beforeAll(async () => {
    bed = await serviceTestBed('pix-adapter', async (env, cleanup) => {
      psp = await startSandboxPspSimulator(testLogger('psp'));
      cleanup.afterStop(() => psp.close());
      return startPixAdapter(
        loadPixAdapterConfig({
          ...env.config,
          PSP_BASE_URL: psp.url,
          CALLBACK_PORT: '0',
          EXPIRY_SWEEP_INTERVAL_MS: '200',
        }),
      );
    });
  });

  afterAll(() => bed.close());

  const openCommand = (overrides: Partial<OpenPixCharge> = {}): OpenPixCharge => ({
    payment_id: newPublicId('pay'),
    business_name: 'Café Açaí Ltda',
    amount_centavos: 2500,
    expires_in_seconds: 3600,
    ...overrides,
  });

  async function open(command = openCommand(), messageId?: string): Promise<PixCharge> {
    const reply = await bed.client.request(openPixCharge, command, { timeoutMs: 8000, messageId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  }

  const charge = async (txid: string) =>
    (
      await bed.service.dataSource.query(
        'SELECT status, revisao, amount_centavos::int AS amount, paid_end_to_end_id FROM charges WHERE txid = $1',
        [txid],
      )
    )[0];

  const outbox = async (txid: string): Promise<string[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT name FROM outbox WHERE envelope->'payload'->>'txid' = $1 ORDER BY seq`,
        [txid],
      )
    ).map((row: { name: string }) => row.name);

  const postCallback = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  describe('pix.charge.open.v1', () => {
    test('opens a cob and answers a valid dynamic BR Code for its location with a PNG QR of it', async () => {
      const opened = await open();
      const parsed = parsePix(opened.copia_e_cola);
      expect(hasError(parsed)).toBe(false);
      expect(opened.copia_e_cola).toContain(new URL(psp.url).host);
      expect(opened.qr_code).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(await charge(opened.txid)).toMatchObject({ status: 'active', revisao: 0, amount: 2500 });
    });

    test('when the same open is delivered twice, one cob is opened and both replies match', async () => {
      const command = openCommand();
      const messageId = newPublicId('cmd');
      const first = await open(command, messageId);
      const second = await open(command, messageId);
      const other = await open(command);
      expect(second).toEqual(first);
      expect(other).toEqual(first);
      const rows = await bed.service.dataSource.query('SELECT txid FROM charges WHERE payment_id = $1', [
        command.payment_id,
      ]);
      expect(rows).toHaveLength(1);
    });
  });

  describe('pix.charge.change-amount.v1', () => {
    test('a new amount moves the cob to a new location with a new code and QR, once per command; a paid charge refuses', async () => {
      const command = openCommand();
      const opened = await open(command);
      const messageId = newPublicId('cmd');
      const change = { payment_id: command.payment_id, amount_centavos: 3000 };
      const first = await bed.client.request(changePixChargeAmount, change, { timeoutMs: 8000, messageId });
      const second = await bed.client.request(changePixChargeAmount, change, { timeoutMs: 8000, messageId });
      if (!first.ok) throw new Error(JSON.stringify(first.error));
      expect(second).toEqual(first);
      expect(first.result.txid).toBe(opened.txid);
      expect(first.result.copia_e_cola).not.toBe(opened.copia_e_cola);
      expect(first.result.qr_code).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(first.result.qr_code).not.toBe(opened.qr_code);

      // parsePix checks the CRC, so a parsed code is an intact one.
      const oldCode = parsePix(opened.copia_e_cola);
      const code = parsePix(first.result.copia_e_cola);
      if (hasError(oldCode) || !isDynamicPix(oldCode)) throw new Error('old code is not a dynamic BR Code');
      if (hasError(code) || !isDynamicPix(code)) throw new Error('new code is not a dynamic BR Code');
      expect(code.url).not.toBe(oldCode.url);
      const payload = await fetchPayload(code.url);
      expect(payload).toMatchObject({ txid: opened.txid, revisao: 1, valor: { original: '30.00' } });
      // The old code no longer leads the payer's bank to this charge.
      expect((await fetch(`http://${oldCode.url}`)).status).toBe(404);
      expect(await charge(opened.txid)).toMatchObject({ revisao: 1, amount: 3000 });
      const [stored] = await bed.service.dataSource.query(
        'SELECT location, copia_e_cola, qr_code FROM charges WHERE txid = $1',
        [opened.txid],
      );
      expect(stored).toEqual({
        location: code.url,
        copia_e_cola: first.result.copia_e_cola,
        qr_code: first.result.qr_code,
      });

      await bed.client.request(
        simulatePixOutcome,
        { payment_id: command.payment_id, outcome: 'paid', amount_centavos: null },
        { timeoutMs: 8000 },
      );
      await waitFor(async () => (await charge(opened.txid)).status === 'paid', { what: 'charge paid' });
      const refused = await bed.client.request(
        changePixChargeAmount,
        { payment_id: command.payment_id, amount_centavos: 5000 },
        { timeoutMs: 8000 },
      );
      expect(refused).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });
  });

  describe('pix.charge.simulate.v1', () => {
    test('paid makes the PSP pay and call back; a redelivered simulate does not pay twice', async () => {
      const command = openCommand();
      const opened = await open(command);
      const messageId = newPublicId('cmd');
      const simulate = { payment_id: command.payment_id, outcome: 'paid' as const, amount_centavos: null };
      expect(await bed.client.request(simulatePixOutcome, simulate, { timeoutMs: 8000, messageId })).toEqual({
        ok: true,
        result: { accepted: true },
      });
      await bed.client.request(simulatePixOutcome, simulate, { timeoutMs: 8000, messageId });
      // Both answered, so both handled: whatever they made the PSP do is done, and the PSP lists one PIX.
      const payer = sandboxPayer(psp.url);
      try {
        expect((await payer.getCharge(opened.txid)).pix).toHaveLength(1);
      } finally {
        await payer.close();
      }
      await waitFor(async () => (await charge(opened.txid)).status === 'paid', { what: 'charge paid' });
      expect(await outbox(opened.txid)).toEqual(['pix.charge.paid.v1']);
      const received = await bed.service.dataSource.query(
        'SELECT outcome FROM callbacks_received WHERE txid = $1',
        [opened.txid],
      );
      expect(received).toEqual([{ outcome: 'applied' }]);
    });

    test('expired lets the sweeper close the charge; a PIX paid afterwards is kept in late_payments', async () => {
      const command = openCommand();
      const opened = await open(command);
      await bed.client.request(
        simulatePixOutcome,
        { payment_id: command.payment_id, outcome: 'expired', amount_centavos: null },
        { timeoutMs: 8000 },
      );
      await waitFor(async () => (await charge(opened.txid)).status === 'expired', { what: 'charge expired' });
      expect(await outbox(opened.txid)).toEqual(['pix.charge.closed.v1']);

      // The PSP's own window has not passed, so a payer can still pay: the PIX must be kept, not lost.
      const payer = sandboxPayer(psp.url);
      try {
        await payer.sandboxPay(opened.txid, null);
      } finally {
        await payer.close();
      }
      const late = await waitFor(
        async () =>
          (
            await bed.service.dataSource.query(
              'SELECT payment_id, amount_centavos::int AS amount, charge_status FROM late_payments WHERE txid = $1',
              [opened.txid],
            )
          )[0],
        { what: 'the late PIX recorded' },
      );
      expect(late).toEqual({ payment_id: command.payment_id, amount: 2500, charge_status: 'expired' });
      expect(await outbox(opened.txid)).toEqual(['pix.charge.closed.v1', 'pix.charge.paid.v1']);
    });

    test('when the window passes after a partial PIX, the closure is underpaid and lists that PIX', async () => {
      const command = openCommand({ amount_centavos: 2500 });
      const opened = await open(command);
      const simulate = (outcome: 'paid' | 'expired', amount: number | null) =>
        bed.client.request(
          simulatePixOutcome,
          { payment_id: command.payment_id, outcome, amount_centavos: amount },
          { timeoutMs: 8000 },
        );
      expect((await simulate('paid', 1000)).ok).toBe(true);
      expect((await simulate('expired', null)).ok).toBe(true);
      await waitFor(async () => (await charge(opened.txid)).status === 'expired', { what: 'charge expired' });
      const [partial] = await bed.service.dataSource.query(
        `SELECT end_to_end_id FROM callbacks_received WHERE txid = $1 AND outcome = 'wrong_amount'`,
        [opened.txid],
      );
      const [closed] = await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.closed.v1'
            AND envelope->'payload'->>'txid' = $1`,
        [opened.txid],
      );
      expect(closed.payload).toEqual({
        payment_id: command.payment_id,
        txid: opened.txid,
        reason: 'underpaid',
        detail: null,
        received_pix: [{ end_to_end_id: partial.end_to_end_id, amount_centavos: 1000 }],
      });
    });

    test('failed removes the cob at the PSP and closes the charge as failed', async () => {
      const command = openCommand();
      const opened = await open(command);
      const reply = await bed.client.request(
        simulatePixOutcome,
        { payment_id: command.payment_id, outcome: 'failed', amount_centavos: null },
        { timeoutMs: 8000 },
      );
      expect(reply.ok).toBe(true);
      expect(await charge(opened.txid)).toMatchObject({ status: 'failed' });
      expect(await outbox(opened.txid)).toEqual(['pix.charge.closed.v1']);
    });
  });

  describe('callback receiver', () => {
    test('refuses a callback without the right token, and records an unknown txid without paying anything', async () => {
      const item = {
        endToEndId: 'E12345678202501011200abcdefghijk',
        txid: 'unknownTxid00000000000000000000x',
        valor: '10.00',
        horario: new Date().toISOString(),
      };
      const wrongToken = bed.service.callbackUrl.replace(/token=[^&]+/, 'token=not-the-token');
      expect((await postCallback(wrongToken, { pix: [item] })).status).toBe(401);
      // A PSP that appends /pix to the whole URL puts it after the token.
      expect((await postCallback(`${bed.service.callbackUrl}/pix`, { pix: [item] })).status).toBe(200);
      const rows = await bed.service.dataSource.query(
        'SELECT outcome FROM callbacks_received WHERE txid = $1',
        [item.txid],
      );
      expect(rows).toEqual([{ outcome: 'unknown_txid' }]);
    });
  });

  const commands: Array<[string, MessageDefinition<unknown>, Record<string, unknown>]> = [
    [openPixCharge.name, openPixCharge as MessageDefinition<unknown>, openCommand() as never],
    [
      changePixChargeAmount.name,
      changePixChargeAmount as MessageDefinition<unknown>,
      { payment_id: newPublicId('pay'), amount_centavos: 100 },
    ],
    [
      simulatePixOutcome.name,
      simulatePixOutcome as MessageDefinition<unknown>,
      { payment_id: newPublicId('pay'), outcome: 'paid', amount_centavos: null },
    ],
  ];

  test.each(commands)('a poison %s command is parked and answered', async (_name, definition, payload) => {
    const envelope = createEnvelope(definition, payload);
    await bed.client.publishEnvelope({ ...envelope, payload: { ...payload, payment_id: 42 } }, {});
    const parked = await waitForParkedMessages(
      `${bed.env.config.AMQP_PREFIX}pix-adapter.commands.parking`,
      'the parked command',
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('payment_id') }),
    ]);
  });

  test('after losing its broker connection the adapter serves open, change and simulate again', async () => {
    bed.service.broker.dropConnectionForTesting();
    const command = openCommand();
    const { result: opened } = await untilAnsweredOk(
      () =>
        bed.client.request(openPixCharge, command, {
          timeoutMs: 1500,
          messageId: `reconnect-${command.payment_id}`,
        }),
      'an open after reconnect',
    );
    const changed = await bed.client.request(
      changePixChargeAmount,
      { payment_id: command.payment_id, amount_centavos: 2600 },
      { timeoutMs: 8000 },
    );
    const simulated = await bed.client.request(
      simulatePixOutcome,
      { payment_id: command.payment_id, outcome: 'paid', amount_centavos: null },
      { timeoutMs: 8000 },
    );
    expect([changed.ok, simulated.ok]).toEqual([true, true]);
    await waitFor(async () => (await charge(opened.txid)).status === 'paid', { what: 'charge paid' });
  });

  test('when the PSP cannot be reached, open answers SERVICE_UNAVAILABLE and stores no charge', async () => {
    const downConfig = loadPixAdapterConfig({
      ...bed.env.config,
      AMQP_PREFIX: `${bed.env.config.AMQP_PREFIX}down.`,
      PSP_BASE_URL: 'http://127.0.0.1:9',
      CALLBACK_PORT: '0',
      PSP_MAX_RETRIES: '0',
    });
    const down = await startPixAdapter(downConfig);
    const downClient = await connectTestClient(downConfig, 'pix-adapter-down-client');
    try {
      const command = openCommand();
      const reply = await downClient.request(openPixCharge, command, { timeoutMs: 8000 });
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
      const rows = await down.dataSource.query('SELECT txid FROM charges WHERE payment_id = $1', [
        command.payment_id,
      ]);
      expect(rows).toEqual([]);
    } finally {
      await down.broker.deleteDeclaredTopology();
      await downClient.close();
      await down.stop();
    }
  });
});
