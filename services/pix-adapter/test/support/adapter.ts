import {
  newPublicId,
  openPixCharge,
  simulatePixOutcome,
  type OpenPixCharge,
  type PixCharge,
  type SimulatePixOutcome,
} from '@gateway/contracts';
import { startSandboxPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  serviceTestBed,
  testLogger,
  waitFor,
  type IsolatedEnvironment,
  type ServiceTestBed,
  type TestBedCleanup,
} from '@gateway/testkit';
import { loadPixAdapterConfig } from '../../src/config';
import { startPixAdapter, type PixAdapter } from '../../src/main';
import { type ApiPixClient } from '../../src/clients/psp/api-pix-client';
import { sandboxPayer } from './sandbox-payer';

export type AdapterBed = ServiceTestBed<PixAdapter>;

export interface AdapterAgainstSandboxPsp {
  bed: AdapterBed;
  psp: RunningPspSimulator;
  /** A payer's bank and the PSP's console on the simulator (`sandboxPayer`), outside the adapter under test. */
  payer: ApiPixClient;
}

/**
 * The PIX adapter on a test bed, against a sandbox PSP simulator on a free port, with a free callback port. `settings`
 * answers the adapter's variables over those (it may put something between the adapter and the PSP, registering its
 * clean-up); `startPsp` starts another simulator than the sandbox's (a bank's mode) with the test's database;
 * `bed.close()` closes the payer and the PSP too.
 */
export async function startAdapterAgainstSandboxPsp(
  label: string,
  settings: (
    psp: RunningPspSimulator,
    env: IsolatedEnvironment,
    cleanup: TestBedCleanup,
  ) => Promise<Record<string, string>> | Record<string, string> = () => ({}),
  startPsp: (databaseUrl: string) => Promise<RunningPspSimulator> = (databaseUrl) =>
    startSandboxPspSimulator(databaseUrl, testLogger('psp')),
): Promise<AdapterAgainstSandboxPsp> {
  let psp!: RunningPspSimulator;
  let payer!: ApiPixClient;
  const bed = await serviceTestBed(label, async (env, cleanup) => {
    psp = await startPsp(env.config.DATABASE_URL);
    cleanup.afterStop(() => psp.close());
    payer = sandboxPayer(psp.url);
    cleanup.afterStop(() => payer.close());
    return startPixAdapter(
      loadPixAdapterConfig({
        ...env.config,
        PSP_BASE_URL: psp.url,
        CALLBACK_PORT: '0',
        ...(await settings(psp, env, cleanup)),
      }),
    );
  });
  return { bed, psp, payer };
}

/** A valid `pix.charge.open.v1` for a new payment; a test states only what matters to it. */
export const anOpenPixCharge = (overrides: Partial<OpenPixCharge> = {}): OpenPixCharge => ({
  payment_id: newPublicId('pay'),
  business_name: 'Café Açaí Ltda',
  amount_centavos: 2500,
  expires_in_seconds: 3600,
  ...overrides,
});

/** Opens a charge through the adapter's command (a refusal fails the test); answers the reply and its payment. */
export async function openCharge(
  bed: AdapterBed,
  command: OpenPixCharge = anOpenPixCharge(),
  options: { timeoutMs?: number; messageId?: string } = {},
): Promise<PixCharge & { payment_id: string }> {
  const reply = await bed.request(openPixCharge, command, { timeoutMs: 8000, ...options });
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return { ...reply.result, payment_id: command.payment_id };
}

/** Sends `pix.charge.simulate.v1` (sandbox) and answers its reply. */
export function simulateOutcome(
  bed: AdapterBed,
  paymentId: string,
  outcome: SimulatePixOutcome['outcome'],
  amountCentavos: number | null = null,
  options: { timeoutMs?: number; messageId?: string } = {},
) {
  return bed.request(
    simulatePixOutcome,
    { payment_id: paymentId, outcome, amount_centavos: amountCentavos },
    { timeoutMs: 8000, ...options },
  );
}

export interface StoredCharge {
  status: string;
  revisao: number;
  amount: number;
  paid_end_to_end_id: string | null;
}

/** The charge as the adapter stored it. */
export async function storedCharge(bed: AdapterBed, txid: string): Promise<StoredCharge> {
  const rows: StoredCharge[] = await bed.service.dataSource.query(
    'SELECT status, revisao, amount_centavos::int AS amount, paid_end_to_end_id FROM charges WHERE txid = $1',
    [txid],
  );
  return rows[0]!;
}

/** Waits until the stored charge has `status`; answers it. */
export function chargeBecomes(
  bed: AdapterBed,
  txid: string,
  status: string,
  timeoutMs = 10_000,
): Promise<StoredCharge> {
  return waitFor(
    async () => {
      const charge = await storedCharge(bed, txid);
      return charge.status === status ? charge : undefined;
    },
    { what: `charge ${txid} ${status}`, timeoutMs },
  );
}

/** The names of the events the adapter wrote about a charge, oldest first (its outbox: published or not yet). */
export async function eventsAbout(bed: AdapterBed, txid: string): Promise<string[]> {
  const rows: Array<{ name: string }> = await bed.service.dataSource.query(
    `SELECT name FROM outbox WHERE envelope->'payload'->>'txid' = $1 ORDER BY seq`,
    [txid],
  );
  return rows.map((row) => row.name);
}

/** Where the adapter parks the events it cannot handle. */
export const eventsParkingQueue = (bed: AdapterBed): string =>
  `${bed.env.config.AMQP_PREFIX}pix-adapter.events.parking`;
