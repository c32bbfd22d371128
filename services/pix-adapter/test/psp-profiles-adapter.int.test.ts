import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PSP_PROFILE_NAMES, PSP_PROFILES, type PspProfileName } from '@gateway/contracts';
import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import { createPspSimulator } from '@gateway/psp-simulator';
import { type TestPki, createTestPki, testLogger } from '@gateway/testkit';
import {
  type AdapterBed,
  chargeBecomes,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';

/** What the simulated banks expect, and what the adapter is configured with. */
const DEVELOPER_APP_KEY = 'bb-developer-key-0123456789';
const ACCOUNT_NUMBER = '123456789';

let pki: TestPki;
/** The callback listener's own certificate and key as files, as an operator configures them. */
let listenerFiles: { cert: string; key: string };
beforeAll(() => {
  pki = createTestPki();
  const dir = join(pki.caPath, '..');
  listenerFiles = { cert: join(dir, 'listener.crt'), key: join(dir, 'listener.key') };
  writeFileSync(listenerFiles.cert, pki.server.cert);
  writeFileSync(listenerFiles.key, pki.server.key);
});
afterAll(() => pki.remove());

/** The whole adapter, configured for `name`, against the simulator in that bank's mode. */
function startAdapterFor(name: PspProfileName): Promise<{ bed: AdapterBed }> {
  const profile = PSP_PROFILES[name];
  return startAdapterAgainstSandboxPsp(
    `psp-profile-${name}`,
    () => ({
      PSP_PROFILE: name,
      PSP_DEVELOPER_APP_KEY: DEVELOPER_APP_KEY,
      PSP_ACCOUNT_NUMBER: ACCOUNT_NUMBER,
      // A bank that calls back over mutual TLS registers only a listener requiring its CA's certificate.
      ...(profile.callbackMtls
        ? {
            CALLBACK_TLS_CERT: listenerFiles.cert,
            CALLBACK_TLS_KEY: listenerFiles.key,
            CALLBACK_CLIENT_CA: pki.caPath,
          }
        : {}),
    }),
    (databaseUrl) =>
      createPspSimulator({
        databaseUrl,
        clientId: SANDBOX_PSP_CLIENT.id,
        clientSecret: SANDBOX_PSP_CLIENT.secret,
        pixKey: SANDBOX_PIX_KEY,
        callbackRetryDelaysMs: [50, 100, 200],
        logger: testLogger('psp'),
        profile: name,
        profileValues: { developerAppKey: DEVELOPER_APP_KEY, accountNumber: ACCOUNT_NUMBER },
        // As Efí: it trusts the listener's certificate and presents one of its CA (the test CA here).
        callbackTls: { ca: pki.caPem, cert: pki.client.cert, key: pki.client.key },
      }).start(0),
  );
}

describe.each(PSP_PROFILE_NAMES)('the whole adapter with PSP_PROFILE=%s', (name) => {
  it('starts against the simulator in that mode, opens a charge and learns by callback that it was paid', async () => {
    const { bed } = await startAdapterFor(name);
    try {
      const opened = await openCharge(bed);
      expect(opened.copia_e_cola).toMatch(/^000201/);
      expect(await simulateOutcome(bed, opened.payment_id, 'paid')).toMatchObject({ ok: true });
      await chargeBecomes(bed, opened.txid, 'paid');
    } finally {
      await bed.close();
    }
  });
});
