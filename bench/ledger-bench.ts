/**
 * `pnpm bench:ledger`: the ledger service alone, run as its own process on a fresh database and broker prefix, fed
 * `payment.confirmed.v1` events as the payment service publishes them (many businesses, PIX and crypto). It reports:
 *
 * - postings per second: N events published while the ledger is stopped, then the ledger started on the backlog;
 *   the rate is the journals committed over the time from the first to the last;
 * - lag: events published at a steady rate below capacity, each timed from its publish to its journal being
 *   committed (seen by a poll of the ledger's tables every `POLL_MS`), p50/p95/p99/max;
 * - the ledger process's and PostgreSQL's CPU per posting, and database transactions per posting;
 * - invariants: every event has exactly one journal, every journal sums to zero, every balance equals its
 *   balance transactions.
 *
 *   pnpm bench:ledger                              3,000 backlog, 200/s for 10 s
 *   pnpm bench:ledger --smoke                      100 backlog, 50/s for 2 s, results to a temporary folder
 *   pnpm bench:ledger --ledger-root /path/to/tree  the ledger of another checkout (a before/after run)
 *   pnpm bench:ledger --settlement-delay 0         settle at once (the sandbox default) instead of D+1
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { longRunningNode } from '@gateway/config';
import { newPublicId, paymentConfirmed, type PaymentEventPayload } from '@gateway/contracts';
import {
  aPaymentEvent,
  connectTestClient,
  deleteBrokerNames,
  isolatedEnvironment,
  letTimePass,
  waitFor,
  type IsolatedEnvironment,
} from '@gateway/testkit';
import { sampleCpu, type ProcessGroup } from './lib/process-cpu';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    backlog: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    businesses: { type: 'string' },
    'ledger-root': { type: 'string' },
    'settlement-delay': { type: 'string', default: '86400' },
    label: { type: 'string' },
    out: { type: 'string' },
    prefetch: { type: 'string' },
    pool: { type: 'string' },
  },
});
const smoke = flags.smoke!;
const backlog = Number(flags.backlog ?? (smoke ? 100 : 3000));
const rate = Number(flags.rate ?? (smoke ? 50 : 200));
const seconds = Number(flags.seconds ?? (smoke ? 2 : 10));
const businessCount = Number(flags.businesses ?? (smoke ? 10 : 500));
const repoRoot = join(__dirname, '..');
const ledgerRoot = resolve(flags['ledger-root'] ?? repoRoot);
const settlementDelay = Number(flags['settlement-delay']);
if (!(backlog > 1) || !(rate > 0) || !(seconds > 0) || !(businessCount > 0) || !(settlementDelay >= 0)) {
  console.error('usage: pnpm bench:ledger [--smoke] [--backlog N] [--rate N] [--seconds N] [--businesses N]');
  process.exit(2);
}
const outDir =
  flags.out ?? (smoke ? mkdtempSync(join(tmpdir(), 'bench-ledger-')) : join(__dirname, 'results'));
const log = (line: string) =>
  process.stderr.write(`[bench:ledger ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** How often the lag phase looks for the journals of the events still outstanding. */
const POLL_MS = 2;
/** Other sessions' statistics reach pg_stat_database about once a second: a count read this long after is whole. */
const STATISTICS_FLUSH_MS = 1200;

/** The checkout's commit; a tree exported without git (`git archive`) says so. */
function commit(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return 'no git checkout';
  }
}

/** The ledger as the launcher runs it: its own process, exactly its variables, with the images' V8 heap settings. */
function startLedger(env: IsolatedEnvironment): ChildProcess {
  const vars: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...env.config,
    LOG_LEVEL: 'warn',
    SETTLEMENT_DELAY_PIX: String(settlementDelay),
    SETTLEMENT_DELAY_CRYPTO: String(settlementDelay),
    ...(flags.prefetch ? { BROKER_PREFETCH: flags.prefetch } : {}),
    ...(flags.pool ? { DATABASE_POOL_SIZE: flags.pool } : {}),
  };
  const node = longRunningNode(['--import', 'tsx', join(ledgerRoot, 'services/ledger/src/main.ts')], vars);
  return spawn(process.execPath, node.args, {
    cwd: ledgerRoot,
    env: node.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stopLedger(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

const businesses = Array.from({ length: businessCount }, () => newPublicId('biz'));
const tokens = ['usdc', 'usdt', 'eurc'] as const;

/** A paid payment of one of the businesses: PIX three times in four, the rest crypto; R$ 10 to R$ 2.000. */
function aConfirmedPayment(i: number): PaymentEventPayload {
  const amount = 1_000 + ((i * 7919) % 199_000);
  const crypto = i % 4 === 3;
  return aPaymentEvent({
    business_id: businesses[i % businesses.length]!,
    status: 'paid',
    method: crypto ? 'crypto' : 'pix',
    ...(crypto ? { token: tokens[i % tokens.length] } : {}),
    amount_centavos: amount,
    fee_centavos: Math.round(amount * 0.0099) + 10,
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const started = new Date();
  const env = await isolatedEnvironment('bench-ledger');
  const db = new pg.Pool({ connectionString: env.config.DATABASE_URL, max: 2 });
  // An idle connection the server ends is only removed from the pool; queries still reject.
  db.on('error', () => undefined);
  const client = await connectTestClient(env.config, 'bench-ledger-publisher');
  const sql = async <T>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[];
  const journalsOfKind = async (kind: string) =>
    Number(
      (await sql<{ n: string }>(`SELECT count(*) AS n FROM ledger.journals WHERE kind = $1`, [kind]))[0]!.n,
    );
  const transactions = async () => {
    await letTimePass(STATISTICS_FLUSH_MS);
    const [row] = await sql<{ n: string }>(
      `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(row!.n);
  };
  const published: PaymentEventPayload[] = [];
  let ledger: ChildProcess | undefined;
  try {
    // Started once to migrate and declare its queue; the first event shows it consumes.
    log(`ledger of ${ledgerRoot} (${commit(ledgerRoot)})`);
    ledger = startLedger(env);
    const warmUp = aConfirmedPayment(0);
    published.push(warmUp);
    await waitFor(
      async () => {
        await client.publish(paymentConfirmed, warmUp);
        return (await journalsOfKind('payment')) > 0;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: 'the ledger posting its first event' },
    );
    await stopLedger(ledger);
    ledger = undefined;

    // Throughput: the backlog waits in the queue, then the ledger drains it.
    log(`publishing a backlog of ${backlog} payment.confirmed.v1 to the stopped ledger`);
    const backlogEvents = Array.from({ length: backlog }, (_, i) => aConfirmedPayment(i + 1));
    for (let i = 0; i < backlogEvents.length; i += 100)
      await Promise.all(
        backlogEvents.slice(i, i + 100).map((event) => client.publish(paymentConfirmed, event)),
      );
    published.push(...backlogEvents);
    const before = await journalsOfKind('payment');
    const txBefore = await transactions();
    ledger = startLedger(env);
    const groups: ProcessGroup[] = [
      { name: 'ledger', pid: ledger.pid! },
      { name: 'postgresql', comm: 'postgres' },
      { name: 'rabbitmq', comm: 'beam.smp' },
    ];
    // CPU counted from the first posting on: the process's start (tsx, connections) is not posting.
    const firstPosted = await waitFor(
      async () => {
        const n = await journalsOfKind('payment');
        return n > before ? n : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 5, what: 'the first posting of the backlog' },
    );
    const cpuBefore = sampleCpu(groups);
    const lastPosted = await waitFor(
      async () => {
        const n = await journalsOfKind('payment');
        return n >= before + backlog ? n : undefined;
      },
      { timeoutMs: 600_000, intervalMs: 20, what: 'the backlog posted' },
    );
    const cpuAfter = sampleCpu(groups);
    // A stopped ledger has reported every transaction of its sessions to the statistics.
    await stopLedger(ledger);
    ledger = undefined;
    const txAfter = await transactions();
    const [span] = await sql<{ first: Date; last: Date }>(
      `SELECT min(created_at) AS first, max(created_at) AS last FROM ledger.journals
       WHERE kind = 'payment' AND cause_key = ANY($1)`,
      [backlogEvents.map((e) => e.event_id)],
    );
    const drainSeconds = (span!.last.getTime() - span!.first.getTime()) / 1000;
    const postingsPerSecond = (backlog - 1) / drainSeconds;
    const cpuMsPerPosting = Object.fromEntries(
      [...cpuAfter].map(([name, ms]) => [
        name,
        (ms - (cpuBefore.get(name) ?? 0)) / (lastPosted - firstPosted),
      ]),
    );
    // The ledger's start and stop and the bench's own counting included: an upper bound.
    const transactionsPerPosting = (txAfter - txBefore) / backlog;
    log(`backlog: ${postingsPerSecond.toFixed(0)} postings/s`);

    // Lag: a steady rate below capacity, each event timed from its publish to its journal seen committed.
    ledger = startLedger(env);
    const ready = aConfirmedPayment(backlog + 1);
    published.push(ready);
    await client.publish(paymentConfirmed, ready);
    await waitFor(
      async () =>
        (await sql(`SELECT 1 FROM ledger.journals WHERE cause_key = $1`, [ready.event_id])).length > 0,
      {
        timeoutMs: 60_000,
        what: 'the restarted ledger posting',
      },
    );
    const total = Math.round(rate * seconds);
    log(`publishing ${total} at ${rate}/s`);
    const outstanding = new Map<string, number>();
    const lags: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling || outstanding.size > 0) {
        if (outstanding.size > 0) {
          const rows = await sql<{ cause_key: string }>(
            `SELECT cause_key FROM ledger.journals WHERE cause_key = ANY($1)`,
            [[...outstanding.keys()]],
          );
          const seen = performance.now();
          for (const { cause_key } of rows) {
            lags.push(seen - outstanding.get(cause_key)!);
            outstanding.delete(cause_key);
          }
        }
        await letTimePass(POLL_MS);
      }
    })();
    const lagStart = performance.now();
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < total; i += 1) {
      const due = lagStart + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await letTimePass(wait);
      const event = aConfirmedPayment(backlog + 2 + i);
      event.occurred_at = new Date().toISOString();
      outstanding.set(event.event_id, performance.now());
      published.push(event);
      sends.push(client.publish(paymentConfirmed, event));
    }
    await Promise.all(sends);
    polling = false;
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([
      poller,
      new Promise((_, reject) => {
        giveUp = setTimeout(
          () => reject(new Error(`${outstanding.size} events not posted within a minute`)),
          60_000,
        );
      }),
    ]).finally(() => clearTimeout(giveUp));
    lags.sort((a, b) => a - b);
    const lag = {
      events: lags.length,
      rate,
      seconds,
      p50: quantile(lags, 0.5),
      p95: quantile(lags, 0.95),
      p99: quantile(lags, 0.99),
      max: lags[lags.length - 1] ?? 0,
    };
    log(`lag: p50 ${lag.p50.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ms`);

    const invariants = [
      {
        name: 'every event has exactly one journal',
        broken: await sql(
          `SELECT k FROM unnest($1::text[]) AS k
           LEFT JOIN ledger.journals j ON j.cause_key = k GROUP BY k HAVING count(j.id) <> 1`,
          [published.map((e) => e.event_id)],
        ),
      },
      {
        name: 'every journal sums to zero',
        broken: await sql(
          `SELECT journal_id FROM ledger.entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0`,
        ),
      },
      {
        name: "each business's balances equal its balance transactions",
        broken: await sql(`
          SELECT b.business_id FROM ledger.balances b
          LEFT JOIN (SELECT business_id, sum(net_centavos) AS net FROM ledger.balance_transactions GROUP BY business_id) t
            USING (business_id)
          WHERE b.available_centavos + b.pending_centavos + b.reserved_centavos + b.blocked_centavos
            <> COALESCE(t.net, 0)`),
      },
    ].map(({ name, broken }) => ({ name, held: broken.length === 0, detail: `${broken.length} broken` }));

    const report = {
      command: `pnpm bench:ledger ${process.argv.slice(2).join(' ')}`.trim(),
      date: started.toISOString(),
      commit: commit(repoRoot),
      ledgerCommit: commit(ledgerRoot),
      label: flags.label ?? null,
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      settings: {
        businesses: businessCount,
        settlementDelaySeconds: settlementDelay,
        prefetch: flags.prefetch ?? 'default',
        pool: flags.pool ?? 'default',
      },
      throughput: {
        postings: backlog,
        seconds: drainSeconds,
        postingsPerSecond,
        cpuMsPerPosting,
        transactionsPerPosting,
      },
      lag,
      invariants,
    };
    const fixed = (n: number, d = 1) => n.toFixed(d);
    const markdown = [
      `# Ledger bench ${report.date}${report.label ? ` (${report.label})` : ''}`,
      '',
      `Ledger commit \`${report.ledgerCommit}\` (bench \`${report.commit}\`), ${report.machine.cpus} cores ` +
        `(${report.machine.cpuModel}), node ${report.machine.node}; ${businessCount} businesses, settlement delay ` +
        `${settlementDelay} s, prefetch ${report.settings.prefetch}, pool ${report.settings.pool}. Command: ` +
        `\`${report.command}\`.`,
      '',
      '## Targets',
      '',
      '| Figure | Target | Measured | Met |',
      '|---|---|---|---|',
      `| Postings/s, backlog of ${backlog} | ≥ 1,000/s | ${fixed(postingsPerSecond, 0)}/s | ${postingsPerSecond >= 1000 ? 'yes' : 'no'} |`,
      `| Lag publish → journal committed, ${rate}/s for ${seconds} s | p99 < 200 ms | p50 ${fixed(lag.p50)} ms, ` +
        `p95 ${fixed(lag.p95)} ms, p99 ${fixed(lag.p99)} ms, max ${fixed(lag.max)} ms | ${lag.p99 < 200 ? 'yes' : 'no'} |`,
      '',
      '## Cost per posting (backlog phase)',
      '',
      `CPU: ${Object.entries(cpuMsPerPosting)
        .map(([name, ms]) => `${name} ${fixed(ms, 2)} ms`)
        .join(
          ', ',
        )}; database transactions ${fixed(transactionsPerPosting, 2)} (the ledger's start included).`,
      '',
      '## Invariants',
      '',
      ...invariants.map((i) => `- ${i.held ? 'held' : 'BROKEN'}: ${i.name} (${i.detail})`),
      '',
    ].join('\n');
    mkdirSync(outDir, { recursive: true });
    const stamp = `${report.date.replace(/[:.]/g, '-')}${report.label ? `-${report.label}` : ''}`;
    writeFileSync(join(outDir, `ledger-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, `ledger-${stamp}.md`), markdown);
    process.stdout.write(`${markdown}\nresults written to ${outDir}\n`);
    if (invariants.some((i) => !i.held)) process.exitCode = 1;
  } finally {
    if (ledger) await stopLedger(ledger);
    await client.close();
    await deleteBrokerNames(env.config.AMQP_PREFIX);
    await db.end();
    await env.database.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
