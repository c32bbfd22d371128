import { randomBytes, randomUUID } from 'node:crypto';
import { createPspSimulator } from '@gateway/psp-simulator';
import { pspBooksForThisFile } from '@gateway/psp-simulator/test/support/books';
import { type PspProfileName } from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import { closeAfterEachTest } from '@gateway/testkit';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import { PspError } from '../src/clients/psp/psp-error';
import { PSP_PROFILES } from '../src/domain/psp-profiles';
import { generateTxid } from '../src/domain/txid';

const CREDENTIALS = { clientId: 'defence-client', clientSecret: 'defence-secret' };
const silent = createLogger('med-defence-test', 'silent');
const afterThisTest = closeAfterEachTest();
const booksUrl = pspBooksForThisFile();
const since = () => new Date(Date.now() - 3_600_000);

/** The simulator as `profile`'s bank, the adapter's client of it, and a Pix paid into a charge there. */
async function paidPixAt(profile: PspProfileName) {
  const pixKey = randomUUID();
  const running = await createPspSimulator({
    databaseUrl: booksUrl(),
    ...CREDENTIALS,
    pixKey,
    logger: silent,
    profile,
  }).start(0);
  afterThisTest(running.close);
  const client = new ApiPixClient(
    {
      baseUrl: running.url,
      pathPrefix: '/v2',
      oauthTokenUrl: `${running.url}/oauth/token`,
      ...CREDENTIALS,
      profile: PSP_PROFILES[profile],
      timeoutMs: 2000,
      maxRetries: 0,
    },
    { logger: silent },
  );
  afterThisTest(() => client.close());
  const txid = generateTxid(randomBytes);
  await client.createCharge(txid, { expiracaoSeconds: 3600, valorCentavos: 2590, chave: pixKey });
  await client.sandboxPay(txid, null);
  const [pix] = await client.listReceivedPix(since(), new Date(Date.now() + 60_000));
  return { running, client, endToEndId: pix!.endToEndId };
}

describe("a MED's defence through the profile's medDefence", () => {
  it("Efí: the Pix's infraction is found and contested once; a repeat finds it defended", async () => {
    const { client, endToEndId } = await paidPixAt('efi');
    expect(await client.defendMed(endToEndId, 'Entregue ao titular.', since())).toBe('no_infraction');
    await client.sandboxRaiseMed(endToEndId, 'med1', 1000);

    expect(await client.defendMed(endToEndId, 'Entregue ao titular.', since())).toBe('submitted');
    expect(await client.defendMed(endToEndId, 'Entregue ao titular.', since())).toBe('submitted');
  });

  it('Efí: a MED already ended has no infraction left to defend', async () => {
    const { client, endToEndId } = await paidPixAt('efi');
    await client.sandboxRaiseMed(endToEndId, 'med1', null);
    await client.sandboxEndMed(endToEndId, 'med1', 'NAO_REALIZADO');

    expect(await client.defendMed(endToEndId, 'Tarde demais.', since())).toBe('no_infraction');
  });

  it('Efí out of reach: the failure is an outage (retried), never a refusal', async () => {
    const { running, client, endToEndId } = await paidPixAt('efi');
    await client.sandboxRaiseMed(endToEndId, 'med1', null);
    await running.close();

    const error = await client.defendMed(endToEndId, 'Sem resposta.', since()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PspError);
    expect((error as PspError).kind).toBe('unavailable');
  });

  it('the baseline (API Pix alone) takes no defence: unsupported, without asking the PSP', async () => {
    const { running, client, endToEndId } = await paidPixAt('bcb');
    await client.sandboxRaiseMed(endToEndId, 'med1', null);
    await running.close();

    expect(await client.defendMed(endToEndId, 'Sem canal.', since())).toBe('unsupported');
  });
});
