import { randomBytes, randomUUID } from 'node:crypto';
import { FAILING_DEVOLUCAO_DESCRICAO, createPspSimulator } from '@gateway/psp-simulator';
import { ApiPixSpec } from '@gateway/psp-simulator/test/support/api-pix-spec';
import {
  type RecordingProxy,
  startRecordingProxy,
} from '@gateway/psp-simulator/test/support/recording-proxy';
import { fetchPayload } from '@gateway/psp-simulator/test/support/payload-location';
import { startCallbackReceiver } from '@gateway/psp-simulator/test/support/callback-receiver';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest, waitFor } from '@gateway/testkit';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { generateTxid } from '../src/domain/txid';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import { cobLocation } from '../src/clients/psp/cob';
import { PspError } from '../src/clients/psp/psp-error';

const CREDENTIALS = { clientId: 'spec-client', clientSecret: 'spec-secret' };
const PREFIX = '/v2';
const silent = createLogger('api-pix-spec-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();
let spec: ApiPixSpec;

beforeAll(async () => {
  spec = await ApiPixSpec.load();
});

interface Recorded {
  proxy: RecordingProxy;
  pixKey: string;
  callbacks: string[];
  client: ApiPixClient;
  receiverUrl: string;
}

/** The adapter's client talking to the simulator through a recorder, and a receiver keeping every callback body. */
async function recordedPsp(): Promise<Recorded> {
  const pixKey = randomUUID();
  const simulator = await createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    pathPrefix: PREFIX,
    logger: silent,
    callbackRetryDelaysMs: [50, 100],
  }).start(0);
  afterThisTest(simulator.close);
  const proxy = await startRecordingProxy(simulator.url);
  afterThisTest(proxy.close);
  const receiver = await startCallbackReceiver();
  afterThisTest(receiver.close);
  const client = new ApiPixClient(
    {
      baseUrl: proxy.url,
      pathPrefix: PREFIX,
      oauthTokenUrl: `${proxy.url}/oauth/token`,
      ...CREDENTIALS,
      timeoutMs: 2000,
      maxRetries: 0,
    },
    { logger: silent },
  );
  afterThisTest(() => client.close());
  return { proxy, pixKey, callbacks: receiver.bodies, client, receiverUrl: `${receiver.url}/pix-hook` };
}

/** Not API Pix: the OAuth endpoint (RFC 6749) and the simulator's sandbox triggers (a payer paying, a PSP removing). */
const isSandboxTrigger = (path: string) => /^\/cob\/pagar\/|^\/cob\/[^/]+\/expirar$/.test(path);

/** Every recorded API Pix exchange checked against the document: the request the adapter sent and the answer. */
function violationsOf(recorded: Recorded, payloadPaths: Set<string>): string[] {
  const violations: string[] = [];
  for (const exchange of recorded.proxy.exchanges) {
    const path = exchange.url.split('?')[0]!;
    if (payloadPaths.has(path)) {
      // A payer's bank fetching the location: `GET /{pixUrlAccessToken}` under the location's own base.
      const token = path.slice(path.lastIndexOf('/'));
      violations.push(...spec.validateResponse('GET', token, exchange.reply));
      continue;
    }
    // OAuth (RFC 6749), and the key set the payload's JWS names in its `jku`, which a bank fetches to verify it.
    if (path === '/oauth/token' || path === '/jwks.json') continue;
    if (!path.startsWith(PREFIX)) {
      violations.push(`${exchange.method} ${path}: neither API Pix nor OAuth`);
      continue;
    }
    const apiPath = path.slice(PREFIX.length);
    if (isSandboxTrigger(apiPath)) continue;
    violations.push(...spec.validateRequest(exchange.method, apiPath, exchange.body));
    violations.push(...spec.validateResponse(exchange.method, apiPath, exchange.reply));
  }
  for (const body of recorded.callbacks) violations.push(...spec.validateCallback(body));
  return violations;
}

async function sandboxPay(recorded: Recorded, txid: string, valor?: string): Promise<void> {
  await recorded.client.sandboxPay(txid, valor === undefined ? null : Math.round(Number(valor) * 100));
}

const newTxid = () => generateTxid(randomBytes);
const charge = (chave: string, valorCentavos = 12345) => ({
  expiracaoSeconds: 3600,
  valorCentavos,
  chave,
  solicitacaoPagador: 'Pedido 42',
});

async function failure(promise: Promise<unknown>): Promise<PspError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PspError)) throw new Error(`expected a PspError, got ${String(error)}`);
  return error;
}

describe('what the adapter sends and the simulator answers, checked against API Pix 2.9.0', () => {
  it('a charge opened, read, replayed, moved to a new location with a new amount, fetched by a bank and paid; another revised in place, opened to a payer-chosen amount and paid in part', async () => {
    const recorded = await recordedPsp();
    const { client, pixKey } = recorded;
    const txid = newTxid();
    await client.registerWebhook(pixKey, recorded.receiverUrl);

    const created = await client.createCharge(txid, charge(pixKey));
    await client.getCharge(txid);
    expect(await client.createCharge(txid, charge(pixKey))).toMatchObject({ txid, revisao: 0 });
    const location = await client.createLocation();
    const moved = await client.updateChargeAmount(txid, 2000, location.id);
    const payload = await fetchPayload(cobLocation(moved)!);
    await sandboxPay(recorded, txid);
    await waitFor(async () => recorded.callbacks.length === 1, { what: 'the PSP callback' });
    const paid = await client.getCharge(txid);
    const partly = newTxid();
    await client.createCharge(partly, charge(pixKey, 5000));
    await client.updateChargeAmount(partly, 4000);
    await client.letPayerChooseAmount(partly, 1000);
    await sandboxPay(recorded, partly, '10.00');
    await waitFor(async () => recorded.callbacks.length === 2, { what: 'the partial payment callback' });

    expect(cobLocation(created)).not.toBe(location.location);
    expect(payload).toMatchObject({ txid, revisao: 1, valor: { original: '20.00' }, status: 'ATIVA' });
    expect(paid).toMatchObject({ status: 'CONCLUIDA', pix: [expect.objectContaining({ valor: '20.00' })] });
    const payloadPaths = new Set([new URL(`http://${location.location}`).pathname]);
    expect(violationsOf(recorded, payloadPaths)).toEqual([]);
    // The token asked for covers every scope the document ties to the operations used.
    const tokenRequest = recorded.proxy.exchanges.find((exchange) => exchange.url === '/oauth/token')!;
    const granted = new URLSearchParams(tokenRequest.body).get('scope')!.split(' ');
    const needed = recorded.proxy.exchanges
      .map((exchange) => ({
        method: exchange.method,
        path: exchange.url.split('?')[0]!.slice(PREFIX.length),
      }))
      .filter(({ path }, i) => recorded.proxy.exchanges[i]!.url.startsWith(PREFIX) && !isSandboxTrigger(path))
      .flatMap(({ method, path }) => spec.scopesOf(method, path));
    expect(needed).toContain('payloadlocation.write');
    expect(needed.filter((scope) => !granted.includes(scope))).toEqual([]);
  });

  it('a cob removed by its receiver (and the removal replayed); a paid Pix refunded in part, replayed, read, refused over its value, not carried out; and the callbacks of its devoluções', async () => {
    const recorded = await recordedPsp();
    const { client, pixKey } = recorded;
    await client.registerWebhook(pixKey, recorded.receiverUrl);
    const removed = newTxid();
    await client.createCharge(removed, charge(pixKey));
    const removal = await client.removeCharge(removed);
    const replayedRemoval = await client.removeCharge(removed);
    const paid = newTxid();
    await client.createCharge(paid, charge(pixKey, 5000));
    await sandboxPay(recorded, paid);
    await waitFor(async () => recorded.callbacks.length === 1, { what: 'the payment callback' });
    const [pix] = (await client.getCharge(paid)).pix!;
    const endToEndId = pix!.endToEndId;
    const first = await client.requestDevolucao(endToEndId, 'devolucao1', {
      valorCentavos: 1000,
      descricao: 'Troca',
    });
    const replayed = await client.requestDevolucao(endToEndId, 'devolucao1', {
      valorCentavos: 1000,
      descricao: 'Troca',
    });
    const failing = await client.requestDevolucao(endToEndId, 'devolucao2', {
      valorCentavos: 500,
      descricao: FAILING_DEVOLUCAO_DESCRICAO,
    });
    const overValue = await failure(
      client.requestDevolucao(endToEndId, 'devolucao3', { valorCentavos: 4500 }),
    );
    await waitFor(async () => recorded.callbacks.length === 3, { what: 'the callbacks of both devoluções' });
    const settled = await client.getDevolucao(endToEndId, 'devolucao1');

    expect(removal).toMatchObject({ txid: removed, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(replayedRemoval).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(first).toMatchObject({ id: 'devolucao1', valor: '10.00', status: 'EM_PROCESSAMENTO' });
    expect(replayed.rtrId).toBe(first.rtrId);
    expect(failing).toMatchObject({ status: 'EM_PROCESSAMENTO' });
    expect(overValue).toMatchObject({ kind: 'invalid', status: 400 });
    expect(settled).toMatchObject({ status: 'DEVOLVIDO', horario: { liquidacao: expect.any(String) } });
    expect(violationsOf(recorded, new Set())).toEqual([]);
    const tokenRequest = recorded.proxy.exchanges.find((exchange) => exchange.url === '/oauth/token')!;
    const granted = new URLSearchParams(tokenRequest.body).get('scope')!.split(' ');
    expect(granted).toEqual(expect.arrayContaining(['pix.write', 'pix.read']));
  });

  it('the answers a PSP gives when it refuses: unknown txid, foreign key, a concluded cob, a bad token', async () => {
    const recorded = await recordedPsp();
    const { client, pixKey } = recorded;
    const txid = newTxid();
    await client.createCharge(txid, charge(pixKey, 1000));
    await sandboxPay(recorded, txid);

    const refusals = [
      await failure(client.getCharge(newTxid())),
      await failure(client.createCharge(newTxid(), charge('someone-else@example.com'))),
      await failure(client.updateChargeAmount(txid, 500, (await client.createLocation()).id)),
    ];
    const unauthorized = await fetch(`${recorded.proxy.url}${PREFIX}/cob/${txid}`, {
      headers: { authorization: 'Bearer not-a-token' },
    });

    expect(refusals.map((error) => error.status)).toEqual([404, 400, 400]);
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({
      type: expect.stringMatching(/^https:\/\/pix\.bcb\.gov\.br/),
    });
    const violations = violationsOf(recorded, new Set()).filter(
      // The document lists no 401 for any operation: OAuth answers it (RFC 6750), not API Pix.
      (violation) => !violation.includes('status 401 is not among'),
    );
    expect(violations).toEqual([]);
  });
});
