import { randomBytes, randomUUID } from 'node:crypto';
import { createPspSimulator } from '@gateway/psp-simulator';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest } from '@gateway/testkit';
import { dateOfDay, saoPauloDay } from '@gateway/contracts';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { generateTxid } from '../src/domain/txid';
import { ApiPixClient, type CreateDueChargeInput } from '../src/clients/psp/api-pix-client';
import { PspError } from '../src/clients/psp/psp-error';

// The API Pix client's charges with a due date (`/cobv`) against the PSP simulator: what a retried PUT meets, and a PSP
// that lists a Pix's parts only on the Pix itself.

const CREDENTIALS = { clientId: 'test-client', clientSecret: 'test-secret' };
const silent = createLogger('psp-simulator-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();

async function startSimulator() {
  const pixKey = randomUUID();
  const simulator = createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    pathPrefix: '/v2',
    logger: silent,
  });
  const running = await simulator.start(0);
  afterThisTest(running.close);
  return { ...running, pixKey };
}

function clientFor(baseUrl: string) {
  const client = new ApiPixClient(
    {
      baseUrl,
      pathPrefix: '/v2',
      oauthTokenUrl: `${baseUrl}/oauth/token`,
      ...CREDENTIALS,
      timeoutMs: 2000,
      maxRetries: 1,
    },
    { retryBaseDelayMs: 5, logger: silent },
  );
  afterThisTest(() => client.close());
  return client;
}

async function captureError(promise: Promise<unknown>): Promise<PspError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PspError)) throw new Error(`expected a PspError, got ${String(error)}`);
  return error;
}

const newTxid = () => generateTxid(randomBytes);
const inDays = (days: number) => dateOfDay(saoPauloDay(new Date()) + days);
const dueCharge = (chave: string, overrides: Partial<CreateDueChargeInput> = {}): CreateDueChargeInput => ({
  calendario: { dataDeVencimento: inDays(5), validadeAposVencimento: 10 },
  valor: { original: '450.00', multa: { modalidade: 2, valorPerc: '2.00' } },
  chave,
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
  ...overrides,
});
/** The PSP refuses the next PUT of a cobv, as one that already holds it may (its answer to the first was lost). */
const refuseNextPut = (psp: Awaited<ReturnType<typeof startSimulator>>) =>
  psp.faults.inject({
    fault: {
      kind: 'answer',
      status: 400,
      body: { type: 'https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida', title: 'Cobrança inválida.' },
    },
    count: 1,
    method: 'PUT',
    path: /\/cobv\//,
  });

describe('ApiPixClient: charges with a due date against the PSP simulator', () => {
  it('a retried PUT /cobv meeting a cobv takes it as its own only when the whole body is the one it sent', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    const first = await client.createDueCharge(txid, dueCharge(psp.pixKey));

    refuseNextPut(psp);
    expect(await client.createDueCharge(txid, dueCharge(psp.pixKey))).toEqual(first);

    for (const other of [
      dueCharge(psp.pixKey, { valor: { original: '450.00', multa: { modalidade: 2, valorPerc: '3.00' } } }),
      dueCharge(psp.pixKey, {
        valor: {
          original: '450.00',
          multa: { modalidade: 2, valorPerc: '2.00' },
          juros: { modalidade: 1, valorPerc: '0.15' },
        },
      }),
      dueCharge(psp.pixKey, { devedor: { cpf: '11144477735', nome: 'Francisco da Silva' } }),
      dueCharge(psp.pixKey, { calendario: { dataDeVencimento: inDays(5), validadeAposVencimento: 11 } }),
    ]) {
      refuseNextPut(psp);
      const error = await captureError(client.createDueCharge(txid, other));
      expect(error.kind).toBe('conflict');
    }
  });

  it('a Pix GET /cobv lists without componentesValor is completed from GET /pix/{e2eid}', async () => {
    const psp = await startSimulator();
    const client = clientFor(psp.url);
    const txid = newTxid();
    await client.createDueCharge(
      txid,
      dueCharge(psp.pixKey, { calendario: { dataDeVencimento: inDays(0), validadeAposVencimento: 10 } }),
    );
    await client.sandboxPayDue(txid);
    const listed = await client.getDueCharge(txid);
    const parts = listed.pix![0]!.componentesValor;
    expect(parts).toEqual({ original: { valor: '450.00' } });

    const bare = { ...listed, pix: listed.pix!.map(({ componentesValor: _parts, ...pix }) => pix) };
    psp.faults.inject({
      fault: { kind: 'answer', status: 200, body: bare as unknown as Record<string, unknown> },
      count: 1,
      method: 'GET',
      path: new RegExp(`/cobv/${txid}$`),
    });
    const completed = await client.getDueCharge(txid);
    expect(completed.pix![0]!.componentesValor).toEqual(parts);
    expect(psp.faults.requestsSeen('GET', new RegExp(`/pix/${listed.pix![0]!.endToEndId}$`))).toBe(1);
  });
});
