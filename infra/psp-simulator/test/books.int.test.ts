import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, recordingLogger, waitFor } from '@gateway/testkit-core';
import { type RunningPspSimulator, createPspSimulator } from '../src';
import { pspBooksForThisFile } from './support/books';
import { outageThroughTwoSettleTries } from './support/books-outage';
import { startCallbackReceiver } from './support/callback-receiver';

const silent = createLogger('psp-simulator-test', 'silent');
const PIX_KEY = '5f0d8d8e-1c7a-4b0e-9a51-2b7f0c6e9d42';
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();

/** A simulator on the file's books; `settleMs` is how long its devoluções stay in processing. */
async function simulator(settleMs = 50, logger = silent): Promise<RunningPspSimulator> {
  const running = await createPspSimulator({
    databaseUrl: booksUrl(),
    clientId: 'books-client',
    clientSecret: 'books-secret',
    pixKey: PIX_KEY,
    logger,
    callbackRetryDelaysMs: [50],
    devolucaoSettleMs: settleMs,
  }).start(0);
  afterThisTest(running.close);
  return running;
}

async function tokenOf(psp: RunningPspSimulator): Promise<string> {
  const response = await fetch(`${psp.url}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('books-client:books-secret').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** API Pix calls on `psp` with `token`: answers status and JSON body. */
function caller(psp: RunningPspSimulator, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${psp.url}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
}

const newTxid = () => `books${randomBytes(12).toString('hex')}`;
const aCob = { calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave: PIX_KEY };

describe('the PSP simulator keeps its books across restarts', () => {
  it('a restarted simulator still knows the cob, its Pix, its devoluções, the token it issued and the webhook', async () => {
    const hook = await startCallbackReceiver();
    afterThisTest(hook.close);
    const first = await simulator();
    const token = await tokenOf(first);
    const call = caller(first, token);
    const txid = newTxid();
    const open = newTxid();
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    await call('PUT', `/cob/${txid}`, aCob);
    await call('PUT', `/cob/${open}`, { ...aCob, solicitacaoPagador: 'Pedido 42' });
    const paid = await call('POST', `/cob/pagar/${txid}`, {});
    const e2eid = paid.json.pix[0].endToEndId as string;
    await call('PUT', `/pix/${e2eid}/devolucao/settled1`, { valor: '3.00' });
    await waitFor(
      async () => (await call('GET', `/pix/${e2eid}/devolucao/settled1`)).json.status === 'DEVOLVIDO',
      {
        what: 'the first devolução settled',
      },
    );
    const before = await call('GET', `/cob/${txid}`);
    const openBefore = await call('GET', `/cob/${open}`);
    await first.close();

    const second = await simulator();
    const again = caller(second, token);
    const after = await again('GET', `/cob/${txid}`);
    const openAfter = await again('GET', `/cob/${open}`);
    const payload = await fetch(`http://${openAfter.json.location}`.replace(/^http:\/\/[^/]+/, second.url));
    const webhook = await again('GET', `/webhook/${PIX_KEY}`);
    const paidTwice = await again('POST', `/cob/pagar/${txid}`, {});
    const tooMuch = await again('PUT', `/pix/${e2eid}/devolucao/over1`, { valor: '7.01' });

    expect(after.status).toBe(200);
    // All but the host of its location (and the BR Code carrying it), which names the port each simulator listens on.
    const withoutHost = ({ pixCopiaECola: _brCode, ...cob }: Record<string, unknown>) =>
      JSON.parse(
        JSON.stringify(cob).replaceAll(new URL(first.url).host, '').replaceAll(new URL(second.url).host, ''),
      );
    expect(withoutHost(after.json)).toEqual(withoutHost(before.json));
    expect(after.json).toMatchObject({
      status: 'CONCLUIDA',
      pix: [
        {
          endToEndId: e2eid,
          valor: '10.00',
          devolucoes: [{ id: 'settled1', status: 'DEVOLVIDO', valor: '3.00' }],
        },
      ],
    });
    expect(openAfter.json).toMatchObject({ status: 'ATIVA', revisao: 0, solicitacaoPagador: 'Pedido 42' });
    expect(openAfter.json.loc.id).toBe(openBefore.json.loc.id);
    expect(payload.status).toBe(200);
    expect(webhook).toMatchObject({ status: 200, json: { webhookUrl: hook.url, chave: PIX_KEY } });
    expect(paidTwice.status).toBe(400);
    expect(tooMuch.status).toBe(400);
  });

  it('a devolução still in processing when the simulator stops settles after it starts again, and is told once', async () => {
    const hook = await startCallbackReceiver();
    afterThisTest(hook.close);
    // Long enough that it is still in processing when this simulator stops.
    const first = await simulator(60_000);
    const call = caller(first, await tokenOf(first));
    const txid = newTxid();
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    await call('PUT', `/cob/${txid}`, aCob);
    const e2eid = (await call('POST', `/cob/pagar/${txid}`, {})).json.pix[0].endToEndId as string;
    await waitFor(() => hook.bodies.length === 1, { what: 'the callback of the payment' });
    const asked = await call('PUT', `/pix/${e2eid}/devolucao/pending1`, { valor: '10.00' });
    await first.close();

    // It is due in a minute: the minute passes while the simulator is down.
    const books = new Client({ connectionString: booksUrl() });
    await books.connect();
    await books.query(`UPDATE psp_simulator.devolucoes SET settles_at = now() WHERE id = 'pending1'`);
    await books.end();
    const second = await simulator();
    const again = caller(second, await tokenOf(second));
    const settled = await waitFor(
      async () => {
        const read = await again('GET', `/pix/${e2eid}/devolucao/pending1`);
        return read.json.status === 'DEVOLVIDO' ? read : undefined;
      },
      { what: 'the devolução settled after the restart' },
    );
    await waitFor(() => second.callbackRunsEnded() === 1, { what: 'its callback delivered' });
    await second.close();

    expect(asked.json.status).toBe('EM_PROCESSAMENTO');
    expect(settled.json).toMatchObject({
      rtrId: asked.json.rtrId,
      horario: { liquidacao: expect.any(String) },
    });
    expect(hook.bodies).toHaveLength(2);
    expect(JSON.parse(hook.bodies[1]!)).toMatchObject({
      pix: [{ endToEndId: e2eid, devolucoes: [{ id: 'pending1', status: 'DEVOLVIDO' }] }],
    });
  });
});

describe('the PSP simulator through an outage of its own database', () => {
  it('a devolução due while the database refuses connections settles once it is back, and is told', async () => {
    const hook = await startCallbackReceiver();
    afterThisTest(hook.close);
    const { logger, lines } = recordingLogger('psp-simulator-outage');
    // Long enough to cut the database off before it is due.
    const psp = await simulator(1_000, logger);
    const call = caller(psp, await tokenOf(psp));
    const txid = newTxid();
    await call('PUT', `/webhook/${PIX_KEY}`, { webhookUrl: hook.url });
    await call('PUT', `/cob/${txid}`, aCob);
    const e2eid = (await call('POST', `/cob/pagar/${txid}`, {})).json.pix[0].endToEndId as string;
    await waitFor(() => hook.bodies.length === 1, { what: 'the callback of the payment' });
    const asked = await call('PUT', `/pix/${e2eid}/devolucao/outage1`, { valor: '4.00' });

    await outageThroughTwoSettleTries(booksUrl(), lines);
    const settled = await waitFor(
      async () => {
        const read = await call('GET', `/pix/${e2eid}/devolucao/outage1`);
        return read.json?.status === 'DEVOLVIDO' ? read : undefined;
      },
      { what: 'the devolução settled after the outage' },
    );
    await waitFor(() => hook.bodies.length === 2, { what: 'the callback of the devolução' });

    expect(asked.json.status).toBe('EM_PROCESSAMENTO');
    expect(settled.json).toMatchObject({ id: 'outage1', horario: { liquidacao: expect.any(String) } });
    expect(JSON.parse(hook.bodies[1]!)).toMatchObject({
      pix: [{ endToEndId: e2eid, devolucoes: [{ id: 'outage1', status: 'DEVOLVIDO' }] }],
    });
  });
});

describe('the PSP simulator under racing requests', () => {
  it('two payers racing on one cob: exactly one Pix is taken, again and again', async () => {
    const psp = await simulator();
    const call = caller(psp, await tokenOf(psp));
    for (let round = 0; round < 10; round++) {
      const txid = newTxid();
      await call('PUT', `/cob/${txid}`, aCob);
      const answers = await Promise.all([1, 2, 3].map(() => call('POST', `/cob/pagar/${txid}`, {})));
      const cob = await call('GET', `/cob/${txid}`);

      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
      expect(cob.json.pix).toHaveLength(1);
    }
  });

  it('two devoluções racing for what a Pix brought in: never more than it is returned', async () => {
    const psp = await simulator(60_000);
    const call = caller(psp, await tokenOf(psp));
    for (let round = 0; round < 10; round++) {
      const txid = newTxid();
      await call('PUT', `/cob/${txid}`, aCob);
      const e2eid = (await call('POST', `/cob/pagar/${txid}`, {})).json.pix[0].endToEndId as string;
      const answers = await Promise.all(
        ['race1', 'race2'].map((id) => call('PUT', `/pix/${e2eid}/devolucao/${id}`, { valor: '6.00' })),
      );
      const pix = await call('GET', `/pix/${e2eid}`);

      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400]);
      expect(pix.json.devolucoes).toHaveLength(1);
    }
  });

  it('a revision racing with a payment: the cob is either paid as it was or revised and still open', async () => {
    const psp = await simulator();
    const call = caller(psp, await tokenOf(psp));
    for (let round = 0; round < 10; round++) {
      const txid = newTxid();
      await call('PUT', `/cob/${txid}`, aCob);
      const [paid, revised] = await Promise.all([
        call('POST', `/cob/pagar/${txid}`, {}),
        call('PATCH', `/cob/${txid}`, { valor: { original: '12.00' } }),
      ]);
      const cob = await call('GET', `/cob/${txid}`);

      if (paid.status === 200) {
        expect(cob.json).toMatchObject({ status: 'CONCLUIDA', pix: [{ valor: cob.json.valor.original }] });
        expect(revised.status === 400 || revised.json.revisao === 1).toBe(true);
      } else {
        // The payer met the revised amount with the old one: refused, the cob still open.
        expect(revised.status).toBe(200);
        expect(cob.json).toMatchObject({ status: 'ATIVA', revisao: 1, valor: { original: '12.00' } });
      }
    }
  });
});

describe('the PSP simulator against hand-made input', () => {
  it('answers an API Pix problem, never a 500: NUL in text, a location id past any integer, another key, a forged token', async () => {
    const psp = await simulator();
    const call = caller(psp, await tokenOf(psp));
    const txid = newTxid();
    await call('PUT', `/cob/${txid}`, aCob);
    const e2eid = (await call('POST', `/cob/pagar/${txid}`, {})).json.pix[0].endToEndId as string;
    const open = newTxid();
    await call('PUT', `/cob/${open}`, aCob);

    const answers = await Promise.all([
      call('PUT', `/cob/${newTxid()}`, { ...aCob, solicitacaoPagador: 'pedido\u0000 42' }),
      call('PUT', `/pix/${e2eid}/devolucao/nul1`, { valor: '1.00', descricao: 'a\u0000b' }),
      call('GET', `/loc/${'9'.repeat(30)}`),
      call('PATCH', `/cob/${open}`, { loc: { id: Number.MAX_SAFE_INTEGER, tipoCob: 'cob' } }),
      call('PUT', `/webhook/another-key`, { webhookUrl: 'https://example.test' }),
      call('GET', `/webhook/another-key`),
      caller(psp, 'forged-token')('GET', `/cob/${txid}`),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 404, 400, 400, 404, 401]);
    expect(answers[3]!.json.detail).toBe(`Nenhuma location com id ${Number.MAX_SAFE_INTEGER}.`);
    expect(
      answers.every((answer) => String(answer.json.type).startsWith('https://pix.bcb.gov.br/api/v2/error/')),
    ).toBe(true);
  });
});
