import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PSP_PROFILE_NAMES,
  PSP_PROFILES,
  submitPixMedDefence,
  type PspProfileName,
} from '@gateway/contracts';
import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import { createPspSimulator } from '@gateway/psp-simulator';
import { type TestPki, createTestPki, testLogger, waitFor } from '@gateway/testkit';
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
function startAdapterFor(name: PspProfileName): ReturnType<typeof startAdapterAgainstSandboxPsp> {
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

describe("a MED's defence through the whole adapter (pix.med.defence.submit.v1)", () => {
  /** A charge paid, then a MED raised on its Pix by the sandbox and come in by callback: the command's MED. */
  async function disputedPayment(bed: AdapterBed) {
    const opened = await openCharge(bed);
    expect(await simulateOutcome(bed, opened.payment_id, 'paid')).toMatchObject({ ok: true });
    await chargeBecomes(bed, opened.txid, 'paid');
    expect(await simulateOutcome(bed, opened.payment_id, 'disputed')).toMatchObject({ ok: true });
    return waitFor(
      async () => {
        const rows: Array<{ end_to_end_id: string; devolucao_id: string }> =
          await bed.service.dataSource.query(
            'SELECT end_to_end_id, devolucao_id FROM med_devolucoes WHERE payment_id = $1',
            [opened.payment_id],
          );
        return rows[0] && { payment_id: opened.payment_id, ...rows[0] };
      },
      { what: 'the MED to come in', timeoutMs: 10_000 },
    );
  }
  const defend = (
    bed: AdapterBed,
    med: { payment_id: string; end_to_end_id: string; devolucao_id: string },
  ) => bed.request(submitPixMedDefence, { ...med, text: 'Pedido entregue ao titular.' }, { timeoutMs: 8000 });

  it('Efí: sent to the PSP as a defence of its infraction; sent again, the same answer; refused once the MED ended', async () => {
    const { bed, psp } = await startAdapterFor('efi');
    try {
      const med = await disputedPayment(bed);
      // The PSP out of reach: unavailable (the caller retries), never a refusal.
      psp.faults.inject({ fault: { kind: 'server-error', status: 503 }, count: 20, path: /\/gn\/infracoes/ });
      expect(await defend(bed, med)).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      psp.faults.clear();
      expect(await defend(bed, med)).toEqual({ ok: true, result: { submitted: true } });
      expect(await defend(bed, med)).toEqual({ ok: true, result: { submitted: true } });
      expect(await defend(bed, { ...med, devolucao_id: 'unknown0med' })).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND' },
      });
      expect(await simulateOutcome(bed, med.payment_id, 'dispute_lost')).toMatchObject({ ok: true });
      await waitFor(
        async () => {
          const [row]: Array<{ status: string }> = await bed.service.dataSource.query(
            'SELECT status FROM med_devolucoes WHERE payment_id = $1',
            [med.payment_id],
          );
          return row?.status === 'DEVOLVIDO' || undefined;
        },
        { what: 'the MED ended', timeoutMs: 10_000 },
      );
      expect(await defend(bed, med)).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    } finally {
      await bed.close();
    }
  });

  it('the baseline (API Pix alone): DEFENCE_NOT_SUPPORTED', async () => {
    const { bed } = await startAdapterFor('bcb');
    try {
      const med = await disputedPayment(bed);
      expect(await defend(bed, med)).toMatchObject({ ok: false, error: { code: 'DEFENCE_NOT_SUPPORTED' } });
    } finally {
      await bed.close();
    }
  });
});
