/**
 * `pnpm bench:stack`: the whole stack against two one-process yardsticks (bench/baseline), side by side in one run, on
 * this machine (load generator included): the naive server a platform team would write first, and the same-work server
 * (the same shape doing the stack's real work: the cob at the PSP, an idempotency key and an outbox row). Prints a
 * Markdown table of every figure with its target and its ratios to both, and writes it with the raw figures as JSON
 * under bench/results/ (or `--out`).
 *
 *   pnpm bench:stack                 full run (about 5 minutes)
 *   pnpm bench:stack --replicas 2    the same with two replicas of payment, pix-adapter and webhook-dispatcher
 *   pnpm bench:stack --smoke         every phase, briefly (CI): its figures say it ran, not how fast; results to a
 *                                    temporary folder
 *   pnpm bench:stack --prefetch 64 --pool 20   every service with that consumer prefetch and database pool
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SANDBOX_PIX_KEY, SANDBOX_PSP_CLIENT } from '@gateway/config';
import { serviceNames, webServiceNames } from '@gateway/contracts';
import {
  benchDatabasePool,
  createTestPki,
  letTimePass,
  startStack,
  waitFor,
  type RunningStack,
} from '@gateway/testkit';
import { inParallel, openBaselineAccounts, openStackAccounts, type StackAccount } from './lib/accounts';
import { startBaseline, type BaselineProcess } from './lib/baseline-process';
import { load, percentile, type LoadFigures, type LoadShape, type Target } from './lib/load';
import {
  cpuPerRequest,
  mergeLargest,
  sampleCpu,
  sampleMemory,
  type MemorySample,
  type ProcessGroup,
} from './lib/process-cpu';
import { startToReady } from './lib/start-to-ready';
import {
  renderMarkdown,
  type BenchReport,
  type PhaseResult,
  type SystemName,
  type WebhookRate,
} from './lib/report';
import {
  confirmedDeliveries,
  createPix,
  pay,
  Receivers,
  simulateRetries,
  subscribe,
  waitForDeliveries,
  type PixPayment,
} from './lib/webhook-phases';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    replicas: { type: 'string', default: '1' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'lag-payments': { type: 'string' },
    keys: { type: 'string' },
    out: { type: 'string' },
    // Every service's consumer prefetch and database pool (BROKER_PREFETCH, DATABASE_POOL_SIZE); unset: the production
    // defaults (a smoke run: the test stacks' smaller pool).
    prefetch: { type: 'string' },
    pool: { type: 'string' },
  },
});
const smoke = flags.smoke!;
const replicas = Number(flags.replicas);
const seconds = Number(flags.seconds ?? 15);
/**
 * A smoke run (CI, among the other suites) checks that every phase runs and reports, not its figures: each closed-loop
 * phase ends after this many answers rather than after `seconds` (a phase of a few seconds once ended with none
 * answered on a busy machine, and a time-bound phase of the reads spent 5 CPU-seconds or more for nothing), each
 * open-loop phase sends for `openLoopSeconds`, and no phase waits for the stack to go quiet first.
 */
const smokeAnswers = smoke && flags.seconds === undefined ? 2 * Number(flags.connections) : undefined;
const openLoopSeconds = smokeAnswers === undefined ? seconds : 2;
const connections = Number(flags.connections);
const lagPayments = Number(flags['lag-payments'] ?? (smoke ? 10 : 1000));
// The per-key limit stays at its default (60 a minute): enough keys that no rolling minute of the run exceeds it.
const keyCount = Number(flags.keys ?? (smoke ? 20 : 500));
const fanOut = smoke ? 5 : 100;
const burstPayments = smoke ? 10 : 400;
/** Each service is started this many times beside the stack for its start-to-ready figure (the median is kept). */
const startsPerService = smoke ? 1 : 5;
/** Every service process of the stack: the broker's services and the dashboard. */
const everyService: readonly string[] = [...serviceNames, ...webServiceNames];
/** The fan-out's endpoints belong to businesses of this many each: every payment reaches all of its business's. */
const ENDPOINTS_PER_FAN_BUSINESS = 10;
if (![1, 2].includes(replicas) || !(seconds > 0) || !(connections > 0) || !(lagPayments > 0)) {
  console.error(
    'usage: pnpm bench:stack [--smoke] [--replicas 1|2] [--seconds N] [--connections N] [--prefetch N] [--pool N]',
  );
  process.exit(2);
}
const outDir = flags.out ?? (smoke ? mkdtempSync(join(tmpdir(), 'bench-')) : join(__dirname, 'results'));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Other sessions' statistics reach pg_stat_database about once a second: a count read this long after is whole. */
const STATISTICS_FLUSH_MS = 1200;

/**
 * A client of the bench's own (counts, checks), connected. PostgreSQL is shared with whatever else runs on the machine
 * and may be at max_connections for a moment ("too many clients", 53300): that is tried again, for up to a minute,
 * rather than losing the run.
 */
async function connected(databaseUrl: string): Promise<pg.Client> {
  return waitFor(
    async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      try {
        await client.connect();
        return client;
      } catch (err) {
        await client.end().catch(() => undefined);
        if ((err as { code?: string }).code === '53300') return undefined;
        throw err;
      }
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'a connection to PostgreSQL (too many clients)' },
  );
}

/** Transactions committed or rolled back so far in these databases, together. */
async function transactions(databaseUrls: readonly string[]): Promise<number> {
  // A smoke run's figures are not measurements: it does not wait for them.
  if (smokeAnswers === undefined) await letTimePass(STATISTICS_FLUSH_MS);
  let total = 0;
  for (const databaseUrl of databaseUrls) {
    const client = await connected(databaseUrl);
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`,
      );
      total += Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  }
  return total;
}

/** broker_messages_published_total of every process, by kind (summed over processes). */
async function publishes(stack: RunningStack): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  const urls = [
    `${stack.gatewayUrl}/metrics`,
    ...Object.values(stack.metricsUrls).map((u) => `${u}/metrics`),
  ];
  for (const url of urls) {
    const text = await fetch(url).then((r) => r.text());
    for (const match of text.matchAll(/^broker_messages_published_total\{kind="([^"]+)"[^}]*\} (\d+)$/gm))
      totals[match[1]!] = (totals[match[1]!] ?? 0) + Number(match[2]);
  }
  return totals;
}

interface System {
  name: SystemName;
  url: string;
  /** Where its transactions are counted: its own database, and the stack's for the PSP simulator's books it causes. */
  databaseUrls: string[];
}

/**
 * Where the same-work server registers its cobs: the PSP simulator the stack runs, reached as the stack's pix-adapter
 * reaches it (plain HTTP on 127.0.0.1, the sandbox client's OAuth credentials, API Pix under `/v2`).
 */
const SAME_WORK_PSP =
  "the stack's own PSP simulator, as the pix-adapter reaches it (HTTP on 127.0.0.1, no mTLS in the sandbox, " +
  'OAuth client credentials, `PUT /v2/cob/{txid}`)';

async function main(): Promise<void> {
  const started = new Date();
  const pki = createTestPki();
  // Receiver 0 takes every endpoint of the lag and burst phases; the fan-out gives each endpoint a receiver of its own.
  const receivers = await Receivers.start(pki.server, fanOut);
  log(
    `starting the stack${replicas > 1 ? ` with ${replicas} replicas of payment, pix-adapter, webhook-dispatcher` : ''}`,
  );
  const stack = await startStack({
    RATE_LIMIT_PER_MINUTE: '60',
    ADMIN_RATE_LIMIT_PER_MINUTE: '1000000',
    NODE_EXTRA_CA_CERTS: pki.caPath,
    ...(flags.prefetch === undefined ? {} : { BROKER_PREFETCH: flags.prefetch }),
    ...benchDatabasePool({ smoke, pool: flags.pool }),
    ...(replicas > 1
      ? { STACK_REPLICAS: `payment=${replicas},pix-adapter=${replicas},webhook-dispatcher=${replicas}` }
      : {}),
  });
  let naive: BaselineProcess | undefined;
  let sameWork: BaselineProcess | undefined;
  try {
    naive = await startBaseline('naive');
    sameWork = await startBaseline('same-work', {
      PSP_URL: `${stack.pspUrl}/v2`,
      PSP_TOKEN_URL: `${stack.pspUrl}/oauth/token`,
      PSP_CLIENT_ID: SANDBOX_PSP_CLIENT.id,
      PSP_CLIENT_SECRET: SANDBOX_PSP_CLIENT.secret,
      PSP_PIX_KEY: SANDBOX_PIX_KEY,
    });
    const report = await run(stack, { naive, sameWork }, receivers, started);
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    const suffix = replicas > 1 ? `-replicas-${replicas}` : '';
    mkdirSync(outDir, { recursive: true });
    const markdown = renderMarkdown(report);
    writeFileSync(join(outDir, `stack-${stamp}${suffix}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, `stack-${stamp}${suffix}.md`), markdown);
    writeFileSync(join(outDir, `latest${suffix}.md`), markdown);
    process.stdout.write(`${markdown}\nresults written to ${outDir}\n`);
    if (report.invariants.some((invariant) => !invariant.held)) process.exitCode = 1;
  } catch (err) {
    // What the stack's processes said is what explains a failed phase: kept outside the results.
    const logFile = join(tmpdir(), `bench-stack-${started.toISOString().replace(/[:.]/g, '-')}.log`);
    try {
      writeFileSync(logFile, stack.logs.join(''));
      log(`the run failed; the stack's output is in ${logFile}`);
    } catch (unwritten) {
      log(`the run failed; the stack's output could not be kept: ${String(unwritten)}`);
    }
    throw err;
  } finally {
    await naive?.stop();
    await sameWork?.stop();
    await stack.stop();
    await receivers.stop();
    pki.remove();
  }
}

async function run(
  stack: RunningStack,
  yardsticks: { naive: BaselineProcess; sameWork: BaselineProcess },
  receivers: Receivers,
  started: Date,
): Promise<BenchReport> {
  const processTable = (): ProcessGroup[] => {
    const all = [...everyService, 'psp-simulator', 'solana-localnet'];
    const groups: ProcessGroup[] = [];
    for (const name of all)
      for (let replica = 1; replica <= replicas; replica++) {
        const processName = replica === 1 ? name : `${name}#${replica}`;
        try {
          groups.push({ name, pid: stack.pidOf(processName) });
        } catch {
          // Not replicated.
        }
      }
    return [
      ...groups,
      { name: 'naive', pid: yardsticks.naive.pid },
      { name: 'same-work', pid: yardsticks.sameWork.pid },
      { name: 'postgresql', comm: 'postgres' },
      { name: 'rabbitmq', comm: 'beam.smp' },
      { name: 'redis', comm: 'redis-server' },
      { name: 'load generator', pid: process.pid },
    ];
  };
  const groups = processTable();
  // The server's setting holds for the whole run: read once, the databases vacuumed before each phase if it is off.
  const vacuumed =
    smokeAnswers === undefined && !(await autovacuumIsOn(stack.env.database.url))
      ? [stack.env.database.url, yardsticks.naive.databaseUrl, yardsticks.sameWork.databaseUrl]
      : [];
  // The services' resident memory idle, before any load (the budget's idle figure).
  const services = groups.filter((group) => everyService.includes(group.name));
  await settle(groups, vacuumed);
  const idleMemory = await idleMemoryOf(services);
  const ours: System = { name: 'ours', url: stack.gatewayUrl, databaseUrls: [stack.env.database.url] };
  const naive: System = {
    name: 'naive',
    url: yardsticks.naive.url,
    databaseUrls: [yardsticks.naive.databaseUrl],
  };
  const sameWork: System = {
    name: 'same-work',
    url: yardsticks.sameWork.url,
    databaseUrls: [yardsticks.sameWork.databaseUrl, stack.env.database.url],
  };

  // Separate businesses for the load, the paid payments and the fan-out, so no key goes over its 60 a minute.
  const lagAccountCount = Math.ceil(((lagPayments + burstPayments) * 2) / 45);
  const fanBusinesses = Math.ceil(fanOut / ENDPOINTS_PER_FAN_BUSINESS);
  log(`opening ${keyCount + lagAccountCount + fanBusinesses} businesses with keys on the stack`);
  const allAccounts = await openStackAccounts(
    stack.gatewayUrl,
    stack.adminToken,
    keyCount + lagAccountCount + fanBusinesses,
  );
  const accounts = allAccounts.slice(0, keyCount);
  const lagAccounts = allAccounts.slice(keyCount, keyCount + lagAccountCount);
  const fanAccounts = allAccounts.slice(keyCount + lagAccountCount);
  const stackKeys = accounts.map((a) => a.apiKey);
  const naiveKeys = await openBaselineAccounts(yardsticks.naive.databaseUrl, 50);
  const sameWorkKeys = await openBaselineAccounts(yardsticks.sameWork.databaseUrl, 50);
  const phases: PhaseResult[] = [];
  const createdIds: string[] = [];
  const sameWorkIds: string[] = [];

  const measure = async (
    name: string,
    system: System,
    target: Target,
    shape: LoadShape,
  ): Promise<LoadFigures> => {
    log(
      `${name} (${system.name}): ${shape.rate ? `${shape.rate}/s open loop` : `${shape.connections} connections`}, ${shape.requests === undefined ? `${shape.seconds} s` : `${shape.requests} requests`}`,
    );
    await settle(groups, vacuumed);
    const sent = system === ours ? await publishes(stack) : {};
    const xactsBefore = await transactions(system.databaseUrls);
    const cpuBefore = sampleCpu(groups);
    const figures = await load(system.url, target, shape);
    const cpuAfter = sampleCpu(groups);
    const xacts = (await transactions(system.databaseUrls)) - xactsBefore;
    const sentAfter = system === ours ? await publishes(stack) : {};
    const n = Math.max(1, figures.requests);
    const published = Object.fromEntries(
      Object.entries(sentAfter).map(([kind, count]) => [kind, (count - (sent[kind] ?? 0)) / n]),
    );
    if (system === ours && target.method === 'POST') createdIds.push(...figures.created.map((c) => c.id));
    if (system === sameWork && target.method === 'POST')
      sameWorkIds.push(...figures.created.map((c) => c.id));
    phases.push({
      name,
      system: system.name,
      shape,
      figures: { ...figures, created: undefined },
      distinctCreated: new Set(figures.created.map((c) => c.id)).size,
      cpuMsPerRequest: cpuPerRequest(cpuBefore, cpuAfter, n),
      transactionsPerRequest: xacts / n,
      publishesPerRequest: replicas > 1 ? undefined : published,
    });
    return figures;
  };

  const creates = (body: Record<string, unknown>, apiKeys: readonly string[]): Target => ({
    method: 'POST',
    path: '/v1/payments',
    body,
    apiKeys,
  });
  const pixBody = { payment_method: 'pix', amount: 12345, currency: 'brl' };
  const cryptoBody = {
    ...pixBody,
    payment_method: 'crypto',
    crypto: { currency: 'usdc', network: 'solana' },
  };
  const closed = { connections, seconds, requests: smokeAnswers };
  const warmUp = { connections, seconds: smoke ? 1 : 3, requests: smokeAnswers && connections };
  await load(naive.url, creates(pixBody, naiveKeys), warmUp);
  await load(sameWork.url, creates(pixBody, sameWorkKeys), warmUp);
  const warm = await load(stack.gatewayUrl, creates(pixBody, stackKeys), warmUp);
  createdIds.push(...warm.created.map((c) => c.id));

  const naivePix = await measure('POST /v1/payments pix', naive, creates(pixBody, naiveKeys), closed);
  const sameWorkPix = await measure(
    'POST /v1/payments pix',
    sameWork,
    creates(pixBody, sameWorkKeys),
    closed,
  );
  const ourPix = await measure('POST /v1/payments pix', ours, creates(pixBody, stackKeys), closed);
  await measure('POST /v1/payments crypto', ours, creates(cryptoBody, stackKeys), closed);

  // A GET reads a payment of the key's own business: each key with one of the payments it created.
  const reads = (gets: { keys: string[]; paths: string[] }): Target => ({
    method: 'GET',
    path: (i) => gets.paths[i]!,
    apiKeys: gets.keys,
  });
  const readable = (figures: LoadFigures, keys: readonly string[]) => {
    const pairs = new Map<number, string>();
    for (const { id, keyIndex } of figures.created) pairs.set(keyIndex, id);
    const entries = [...pairs].slice(0, keys.length);
    return { keys: entries.map(([i]) => keys[i]!), paths: entries.map(([, id]) => `/v1/payments/${id}`) };
  };
  await measure('GET /v1/payments/{id}', naive, reads(readable(naivePix, naiveKeys)), closed);
  await measure('GET /v1/payments/{id}', sameWork, reads(readable(sameWorkPix, sameWorkKeys)), closed);
  await measure('GET /v1/payments/{id}', ours, reads(readable(ourPix, stackKeys)), closed);
  // A list: the key's business's ten newest payments.
  const lists = (keys: readonly string[]): Target => ({
    method: 'GET',
    path: () => '/v1/payments?limit=10',
    apiKeys: keys,
  });
  await measure('GET /v1/payments', naive, lists(naiveKeys), closed);
  await measure('GET /v1/payments', sameWork, lists(sameWorkKeys), closed);
  await measure('GET /v1/payments', ours, lists(stackKeys), closed);

  for (const rate of [20, 50]) {
    const shape = { connections: 0, seconds: openLoopSeconds, rate };
    await measure(`POST /v1/payments pix at ${rate}/s`, ours, creates(pixBody, stackKeys), shape);
  }
  for (const [yardstick, keys] of [
    [naive, naiveKeys],
    [sameWork, sameWorkKeys],
  ] as const)
    await measure('POST /v1/payments pix at 50/s', yardstick, creates(pixBody, keys), {
      connections: 0,
      seconds: openLoopSeconds,
      rate: 50,
    });

  // Event lag: payments paid at a steady rate, each timed from the simulate request to its signed webhook.
  log(`event lag over ${lagPayments} payments`);
  const lagSubscribers = await subscribe(
    stack.gatewayUrl,
    receivers,
    lagAccounts.map((account) => ({ account, receiver: 0, path: `/lag/${account.businessId}` })),
  );
  const secrets = new Map(lagSubscribers.map((s) => [s.path, s.secret]));
  const lagPaymentsMade = await createPix(stack.gatewayUrl, lagAccounts, lagPayments);
  const askedAt = new Map<string, number>();
  // A steady 20 payments/s, well under saturation: the lag of an event, not of a queue the load built up.
  const payRate = smoke ? 10 : 20;
  await settle(groups, vacuumed);
  const lagCpuBefore = sampleCpu(groups);
  const lagStart = Date.now();
  // Open loop: payment i is asked for at i / payRate seconds, whatever the answers before it took.
  await Promise.all(
    lagPaymentsMade.map(async (payment, i) => {
      const due = lagStart + (i * 1000) / payRate;
      await letTimePass(Math.max(0, due - Date.now()));
      askedAt.set(payment.paymentId, await pay(stack.gatewayUrl, payment));
    }),
  );
  const lagConfirmed = () =>
    new Set(confirmedDeliveries(receivers, (p) => secrets.get(p)).map((d) => d.paymentId)).size;
  await waitForDeliveries(receivers, lagPaymentsMade.length, lagConfirmed, 120_000);
  const lagCpu = cpuPerRequest(lagCpuBefore, sampleCpu(groups), lagPaymentsMade.length);
  const firstArrival = new Map<string, number>();
  for (const delivery of confirmedDeliveries(receivers, (p) => secrets.get(p)))
    if (!firstArrival.has(delivery.paymentId)) firstArrival.set(delivery.paymentId, delivery.at);
  const lags = lagPaymentsMade
    .map((p) => firstArrival.get(p.paymentId)! - askedAt.get(p.paymentId)!)
    .sort((a, b) => a - b);

  // Deliveries per second: every payment of a burst paid at once, to one endpoint each; then one business's payments
  // to `fanOut` endpoints of its own.
  const burst = await deliveryRate(
    stack,
    groups,
    receivers,
    lagAccounts,
    lagSubscribers.map((s) => s.path),
    secrets,
    burstPayments,
    1,
  );
  const fanSubscribers = await subscribe(
    stack.gatewayUrl,
    receivers,
    Array.from({ length: fanOut }, (_, i) => {
      const account = fanAccounts[i % fanAccounts.length]!;
      return { account, receiver: i, path: `/fan/${account.businessId}/${i}` };
    }),
  );
  for (const s of fanSubscribers) secrets.set(s.path, s.secret);
  const fan = await deliveryRate(
    stack,
    groups,
    receivers,
    fanAccounts,
    fanSubscribers.map((s) => s.path),
    secrets,
    fanAccounts.length * (smoke ? 1 : 20),
    Math.min(fanOut, ENDPOINTS_PER_FAN_BUSINESS),
  );

  // What must hold whatever the timing: every payment made once, every confirmed one delivered signed, none twice.
  const deliveries = confirmedDeliveries(receivers, (p) => secrets.get(p));
  const eventsPerPayment = new Map<string, Set<string>>();
  for (const d of deliveries)
    eventsPerPayment.set(d.paymentId, (eventsPerPayment.get(d.paymentId) ?? new Set()).add(d.eventId));
  const paid = [...lagPaymentsMade, ...burst.payments, ...fan.payments];
  const allIds = [...createdIds, ...paid.map((p) => p.paymentId)];
  const stored = await storedPayments(
    stack.env.database.url,
    allIds,
    paid.map((p) => p.paymentId),
  );
  const distinctAnswered = new Set(allIds).size;
  const sameWorkStored = await sameWorkPayments(yardsticks.sameWork.databaseUrl, sameWorkIds);
  const sameWorkDistinct = new Set(sameWorkIds).size;
  // The peaks before the start-up phase: a starting replica's memory is its own, not the running one's.
  const peakMemory = sampleMemory(services);
  await settle(groups, vacuumed);
  log(`timing each service from start to ready (${startsPerService} starts each)`);
  const startToReadyMs = await startToReady(stack, everyService, startsPerService);

  return {
    command: `pnpm bench:stack ${process.argv.slice(2).join(' ')}`.trim(),
    date: started.toISOString(),
    commit: checkedOutCommit(),
    serviceNodeFlags: readFileSync(`/proc/${stack.pidOf('api-gateway')}/cmdline`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .slice(1, -1),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    replicas,
    keys: keyCount,
    sameWorkPsp: SAME_WORK_PSP,
    autovacuumStoodIn: vacuumed.length > 0,
    phases,
    memoryMiB: {
      idle: Object.fromEntries(Object.entries(idleMemory).map(([name, { rss }]) => [name, rss])),
      // At least what the idle sample saw: the kernel raises its high-water mark lazily (not when pages are reclaimed
      // from the process), and on this machine a later VmHWM was once a MiB under an earlier VmRSS.
      peak: Object.fromEntries(
        Object.entries(peakMemory).map(([name, { peak }]) => [
          name,
          Math.max(peak, idleMemory[name]?.rss ?? 0),
        ]),
      ),
    },
    startToReadyMs,
    eventLag: {
      payments: lags.length,
      payRate,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags.at(-1) ?? 0,
      cpuMsPerPayment: lagCpu,
      simulateRetries: simulateRetries.count,
    },
    webhookRates: [
      {
        endpoints: 1,
        label: `to 1 receiver (${burstPayments} payments of ${lagAccountCount} businesses paid at once, one origin)`,
        ...burst.figures,
      },
      {
        endpoints: fanOut,
        label: `to ${fanOut} receivers (each its own origin; ${ENDPOINTS_PER_FAN_BUSINESS} per business, every payment to all of its business's)`,
        ...fan.figures,
      },
    ],
    invariants: [
      {
        name: 'every 201 names a distinct payment, stored once',
        held: stored.answered === distinctAnswered,
        detail: `${distinctAnswered} distinct payment_ids answered, ${stored.answered} of them stored`,
      },
      {
        name: 'same-work server: every 201 names a distinct payment, stored once with its outbox row',
        held: sameWorkStored.payments === sameWorkDistinct && sameWorkStored.outbox === sameWorkDistinct,
        detail: `${sameWorkDistinct} distinct payment_ids answered, ${sameWorkStored.payments} stored, ${sameWorkStored.outbox} outbox rows`,
      },
      {
        name: 'no request made two payments',
        held: stored.twiceForOneRequest === 0,
        detail: `${stored.total} payments in the database, ${stored.twiceForOneRequest} extra for a request that made one already`,
      },
      {
        name: 'every payment asked to be paid is paid',
        held: stored.paid === paid.length,
        detail: `${stored.paid} of ${paid.length}`,
      },
      {
        name: 'every paid payment has a correctly signed payment.confirmed, at every endpoint subscribed',
        held: deliveries.every((d) => d.signed) && paid.every((p) => eventsPerPayment.has(p.paymentId)),
        detail: `${deliveries.length} deliveries, ${deliveries.filter((d) => !d.signed).length} badly signed`,
      },
      {
        name: 'no payment confirmed twice (one payment.confirmed event id per payment)',
        held: [...eventsPerPayment.values()].every((ids) => ids.size === 1),
        detail: `${[...eventsPerPayment.values()].filter((ids) => ids.size > 1).length} payments with more than one event`,
      },
    ],
  };
}

async function deliveryRate(
  stack: RunningStack,
  groups: readonly ProcessGroup[],
  receivers: Receivers,
  accounts: readonly StackAccount[],
  paths: readonly string[],
  secrets: Map<string, string>,
  count: number,
  endpointsPerPayment: number,
): Promise<{ payments: PixPayment[]; figures: WebhookRate }> {
  log(`webhook deliveries: ${count} payments, each to ${endpointsPerPayment} of ${paths.length} endpoints`);
  const payments = await createPix(stack.gatewayUrl, accounts, count);
  const ids = new Set(payments.map((p) => p.paymentId));
  const wanted = new Set(paths);
  const mine = () =>
    confirmedDeliveries(receivers, (p) => secrets.get(p)).filter(
      (d) => ids.has(d.paymentId) && wanted.has(d.path),
    );
  const expected = count * endpointsPerPayment;
  // The dispatcher is paused while the payments are paid, so their events wait in its queue: the rate measured from
  // its resumption is the dispatcher's own, not how fast the sandbox can pay.
  const dispatchers = dispatcherPids(stack);
  for (const pid of dispatchers) process.kill(pid, 'SIGSTOP');
  let resumedAt: number;
  let cpuBefore = sampleCpu(groups);
  try {
    await inParallel(payments.length, 16, (i) => pay(stack.gatewayUrl, payments[i]!));
    await waitFor(async () => (await paidCount(stack.env.database.url, [...ids])) === ids.size, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'every payment of the burst paid',
    });
  } finally {
    resumedAt = Date.now();
    cpuBefore = sampleCpu(groups);
    for (const pid of dispatchers) process.kill(pid, 'SIGCONT');
  }
  await waitForDeliveries(receivers, expected, () => mine().length, 180_000);
  const cpuAfter = sampleCpu(groups);
  const last = Math.max(...mine().map((d) => d.at));
  const deliveries = mine().length;
  return {
    payments,
    figures: {
      deliveries,
      perSecond: (deliveries * 1000) / Math.max(1, last - resumedAt),
      cpuMsPerDelivery: cpuPerRequest(cpuBefore, cpuAfter, deliveries),
    },
  };
}

function dispatcherPids(stack: RunningStack): number[] {
  return Array.from({ length: replicas }, (_, i) =>
    stack.pidOf(i === 0 ? 'webhook-dispatcher' : `webhook-dispatcher#${i + 1}`),
  );
}

async function paidCount(databaseUrl: string, ids: readonly string[]): Promise<number> {
  const client = await connected(databaseUrl);
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM payment.payments WHERE id = ANY($1) AND status = 'paid'`,
      [ids],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** How long the stack stays idle before its idle memory is read, and how long it is read for (every 2 s). */
const IDLE_SETTLE_MS = 60_000;
const IDLE_WINDOW_MS = 30_000;
const IDLE_SAMPLE_EVERY_MS = 2_000;

/**
 * Each service's idle resident memory: the largest of the samples read every 2 s over IDLE_WINDOW_MS, once the quiet
 * stack has stayed idle IDLE_SETTLE_MS. Read at once, it held what loading the modules left: V8 shrinks the young
 * generation it grew then, and gives back the old generation's garbage, only when its memory reducer runs, 8 s after a
 * full collection and again while the process stays idle (ADR 0049); one service read 8 MiB apart from one run to the
 * next by whether it had run yet. The largest over the window keeps what a process's own timers allocate between two
 * collections (the Solana watcher polls the chain every second). A smoke run reads once, at once.
 */
async function idleMemoryOf(services: readonly ProcessGroup[]): Promise<MemorySample> {
  if (smokeAnswers !== undefined) return sampleMemory(services);
  await letTimePass(IDLE_SETTLE_MS);
  const largest: MemorySample = {};
  for (const end = Date.now() + IDLE_WINDOW_MS; ; await letTimePass(IDLE_SAMPLE_EVERY_MS)) {
    mergeLargest(largest, sampleMemory(services));
    if (Date.now() >= end) return largest;
  }
}

/** The span over which the machine's CPU use is sampled to tell whether it is quiet. */
const QUIET_SAMPLE_MS = 500;

/** Whether the server runs autovacuum (a server-wide setting). */
async function autovacuumIsOn(databaseUrl: string): Promise<boolean> {
  const client = await connected(databaseUrl);
  try {
    const { rows } = await client.query<{ autovacuum: string }>(
      `SELECT current_setting('autovacuum') AS autovacuum`,
    );
    return rows[0]!.autovacuum === 'on';
  } finally {
    await client.end();
  }
}

/**
 * Vacuums and analyses a database, for a server that runs without autovacuum. With `autovacuum = off` (this machine's
 * server) the planner has no column statistics for the stack's tables, however they have grown, and every delivered
 * webhook and published outbox row stays in the partial indexes the pollers scan after every commit: each phase would
 * start on the rows of all the phases before it. Autovacuum itself would wait until a fifth of a table had changed;
 * this is its effect between phases (docs/benchmarks.md, "Autovacuum").
 */
async function vacuumAndAnalyse(databaseUrl: string): Promise<void> {
  const client = await connected(databaseUrl);
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

/**
 * Waits until the machine is quiet (every process of the run together below 0.3 of a core over half a second; idle,
 * the stack's pollers use about 0.2; 30 s at most): a phase never pays for the backlog the one before it left,
 * whichever system it measures. Before that, `vacuumed` (the run's databases where the server's autovacuum is off,
 * else none) are vacuumed and analysed. A smoke run, whose figures are not measurements, does neither.
 */
async function settle(groups: readonly ProcessGroup[], vacuumed: readonly string[]): Promise<void> {
  if (smokeAnswers !== undefined) return;
  for (const databaseUrl of vacuumed) await vacuumAndAnalyse(databaseUrl);
  const deadline = Date.now() + 30_000;
  const others = groups.filter((group) => group.name !== 'load generator');
  while (Date.now() < deadline) {
    const before = sampleCpu(others);
    await letTimePass(QUIET_SAMPLE_MS);
    const after = sampleCpu(others);
    const busyMs = [...after].reduce((sum, [name, ms]) => sum + ms - (before.get(name) ?? 0), 0);
    if (busyMs < 150) return;
  }
}

/** How many of these payments the payment service stores, how many it stores in all, and how many of `paid` are paid. */
async function storedPayments(databaseUrl: string, answered: readonly string[], paid: readonly string[]) {
  const client = await connected(databaseUrl);
  try {
    const count = async (sql: string, params: unknown[] = []) =>
      Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n);
    return {
      answered: await count(`SELECT count(*) AS n FROM payment.payments WHERE id = ANY($1)`, [answered]),
      total: await count(`SELECT count(*) AS n FROM payment.payments`),
      twiceForOneRequest: await count(
        `SELECT count(*) - count(DISTINCT metadata) AS n FROM payment.payments WHERE metadata IS NOT NULL`,
      ),
      paid: await count(`SELECT count(*) AS n FROM payment.payments WHERE id = ANY($1) AND status = 'paid'`, [
        paid,
      ]),
    };
  } finally {
    await client.end();
  }
}

/** How many of these payments the same-work server stores, and how many outbox rows it holds for them. */
async function sameWorkPayments(databaseUrl: string, ids: readonly string[]) {
  const client = await connected(databaseUrl);
  try {
    const count = async (sql: string) => Number((await client.query<{ n: string }>(sql, [ids])).rows[0]!.n);
    return {
      payments: await count(`SELECT count(*) AS n FROM baseline_payments WHERE id = ANY($1)`),
      outbox: await count(`SELECT count(*) AS n FROM baseline_outbox WHERE aggregate_id = ANY($1)`),
    };
  } finally {
    await client.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/** The commit checked out, and whether the files differ from it: a run of uncommitted code says so. */
function checkedOutCommit(): string {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim();
  const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: __dirname })
    .toString()
    .trim();
  return changed ? `${commit}, with uncommitted changes` : commit;
}
