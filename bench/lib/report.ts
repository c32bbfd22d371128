import type { LoadFigures, LoadShape } from './load';

/** Deliveries of one webhook phase, timed from the dispatcher's resumption, with every process's CPU per delivery. */
export interface WebhookRate {
  deliveries: number;
  perSecond: number;
  cpuMsPerDelivery: Record<string, number>;
}

/** The four biggest costs, e.g. `webhook-dispatcher 1.20, postgresql 0.80, ...`. */
function biggestCosts(costs: Record<string, number>): string {
  return Object.entries(costs)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 4)
    .map(([name, ms]) => `${name} ${fixed(ms, 2)}`)
    .join(', ');
}

/** Who served a phase: the stack, or one of the two one-process yardsticks (bench/baseline). */
export type SystemName = 'ours' | 'naive' | 'same-work';

export interface PhaseResult {
  name: string;
  system: SystemName;
  shape: LoadShape;
  figures: Omit<LoadFigures, 'created'> & { created?: undefined };
  distinctCreated: number;
  cpuMsPerRequest: Record<string, number>;
  transactionsPerRequest: number;
  /** By kind; undefined when replicas publish through metrics ports the bench does not know. */
  publishesPerRequest?: Record<string, number>;
}

export interface BenchReport {
  command: string;
  date: string;
  commit: string;
  /** The node options the stack's services ran with (the gateway's command line between node and its file). */
  serviceNodeFlags?: string[];
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string };
  replicas: number;
  keys: number;
  /** Where the same-work yardstick registers its cobs, e.g. "the stack's own PSP simulator". */
  sameWorkPsp?: string;
  /**
   * The server ran without autovacuum and the bench vacuumed and analysed the run's databases before each phase
   * (undefined in runs before the bench did).
   */
  autovacuumStoodIn?: boolean;
  phases: PhaseResult[];
  eventLag: {
    payments: number;
    payRate: number;
    p50: number;
    p99: number;
    max: number;
    /** Simulate requests of the whole run answered 503 and asked again (the lag counts from the first ask). */
    simulateRetries?: number;
    /** Every process's CPU over the lag phase, per payment paid (from the simulate request to its webhook). */
    cpuMsPerPayment?: Record<string, number>;
  };
  webhookRates: Array<WebhookRate & { endpoints: number; label: string }>;
  invariants: Array<{ name: string; held: boolean; detail: string }>;
  /**
   * Each service's resident memory in MiB (the largest of its replicas): idle before the load (the largest read over
   * 30 s once the quiet stack had been idle 60 s; before commit 0847a0a, one read as soon as it was quiet),
   * and its peak over the whole run (the kernel's high-water mark), under the bench's load.
   */
  memoryMiB?: { idle: Record<string, number>; peak: Record<string, number> };
  /**
   * Each service's time from start to ready in ms, the median of its starts: one more replica started beside the
   * running stack after the load, from node's spawn to its readiness probe answering 200 (the gateway's and the
   * dashboard's `/readyz`, another service's `/healthz`), migrations checked and broker connected.
   */
  startToReadyMs?: Record<string, number>;
}

/** The memory budget per service process (issue 35): idle, and at its peak under the bench's load. */
const IDLE_MEMORY_BUDGET_MIB = 80;
const PEAK_MEMORY_BUDGET_MIB = 150;
/** The start-up budget per service process (issue 35): ready this long after it was started. */
const START_TO_READY_BUDGET_MS = 1500;

const fixed = (n: number, digits = 1) => n.toFixed(digits);

/** The phase of this name run against `system`, if the run had one. */
export function phase(report: BenchReport, name: string, system: SystemName): PhaseResult | undefined {
  return report.phases.find((p) => p.name === name && p.system === system);
}

/** Sum of every process's CPU per request, as the CPU table's Total column. */
export function totalCpu(costs: Record<string, number>): number {
  return Object.values(costs).reduce((a, b) => a + b, 0);
}

/** Not the system measured: the load generator, and the yardsticks idling while the stack is loaded. */
const NOT_THE_STACK = new Set(['load generator', 'naive', 'same-work']);

/**
 * What the profile shows: the biggest processes of the stack per request (the load generator and the idle yardsticks
 * left out), and the total of every process, e.g. `pix-adapter 3.20, postgresql 2.50, ... (total 12.30 ms)`.
 */
export function profileOf(costs: Record<string, number>, count = 4): string {
  const biggest = Object.entries(costs)
    .filter(([name]) => !NOT_THE_STACK.has(name))
    .sort(([, a], [, b]) => b - a)
    .slice(0, count)
    .map(([name, ms]) => `${name} ${fixed(ms, 2)}`)
    .join(', ');
  return `${biggest} (total ${fixed(totalCpu(costs), 2)} ms)`;
}

export interface TargetCheck {
  figure: string;
  target: string;
  value: string;
  met: boolean;
  /** How far from the target, when missed: "0.24x short", "6.3 ms over". */
  gap?: string;
  /** What the CPU profile shows, when missed. */
  profile?: string;
}

/** The issue's targets, each checked against this run; a missed one says by how much and what the profile shows. */
export function targets(report: BenchReport): TargetCheck[] {
  const pix = 'POST /v1/payments pix';
  const get = 'GET /v1/payments/{id}';
  const ourPix = phase(report, pix, 'ours');
  const at50 = phase(report, `${pix} at 50/s`, 'ours');
  const ratio = (a?: PhaseResult, b?: PhaseResult) =>
    a && b && b.figures.throughput > 0 ? a.figures.throughput / b.figures.throughput : 0;
  const cpu = (p?: PhaseResult) => (p ? `${fixed(totalCpu(p.cpuMsPerRequest), 2)} ms` : '?');
  const ratioTarget = (
    figure: string,
    name: string,
    yardstick: SystemName,
    minimum: number,
    what: string,
  ): TargetCheck => {
    const ours = phase(report, name, 'ours');
    const theirs = phase(report, name, yardstick);
    const r = ratio(ours, theirs);
    const errors = ours?.figures.errors ?? 0;
    const met = ours !== undefined && theirs !== undefined && r >= minimum && errors === 0;
    const gaps = [
      ...(r < minimum ? [`${fixed(minimum - r, 2)}x short`] : []),
      ...(errors > 0 ? [`${errors} errors`] : []),
    ];
    return {
      figure,
      target: `≥ ${fixed(minimum, 1)}x`,
      value:
        ours && theirs
          ? `${fixed(r, 2)}x (${fixed(ours.figures.throughput)} vs ${fixed(theirs.figures.throughput)} requests/s), ` +
            `${ours.figures.errors} errors`
          : `not measured (no ${ours ? yardstick : 'ours'} phase)`,
      met,
      ...(met
        ? {}
        : {
            gap: ours && theirs ? gaps.join(', ') : 'not measured',
            profile:
              ours && theirs
                ? `CPU per ${what}: ours ${cpu(ours)}, ${yardstick} ${cpu(theirs)}; ours by process: ` +
                  profileOf(ours.cpuMsPerRequest)
                : 'not measured',
          }),
    };
  };
  const below = (
    figure: string,
    limit: number,
    value: number | undefined,
    unit: string,
    costs: Record<string, number> | undefined,
    what: string,
    inclusive = false,
  ): TargetCheck => {
    const met = value !== undefined && (inclusive ? value <= limit : value < limit);
    return {
      figure,
      target: `${inclusive ? '≤' : '<'} ${limit} ${unit}`,
      value: value === undefined ? '?' : `${fixed(value, unit === 'ms' && value % 1 !== 0 ? 1 : 0)} ${unit}`,
      met,
      ...(met
        ? {}
        : {
            gap: value === undefined ? 'not measured' : `${fixed(value - limit, 1)} ${unit} over`,
            profile: costs ? `CPU per ${what} by process: ${profileOf(costs)}` : 'not measured',
          }),
    };
  };
  const ourCpu = ourPix ? totalCpu(ourPix.cpuMsPerRequest) : undefined;
  /** A budget every service must keep: met when the largest figure is within it; missed, every service's figure. */
  const budgetTarget = (
    figure: string,
    budget: number,
    unit: 'MiB' | 'ms',
    byService?: Record<string, number>,
  ): TargetCheck => {
    const [largest, value] = Object.entries(byService ?? {}).sort((a, b) => b[1] - a[1])[0] ?? [];
    const met = value !== undefined && value <= budget;
    const listed = Object.entries(byService ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([name, v]) => `${name} ${v}`)
      .join(', ');
    return {
      figure,
      target: `≤ ${budget} ${unit}`,
      value: value === undefined ? '?' : `${value} ${unit} (${largest})`,
      met,
      ...(met
        ? {}
        : {
            gap: value === undefined ? 'not measured' : `${value - budget} ${unit} over`,
            profile:
              value === undefined
                ? 'not measured'
                : `${unit === 'MiB' ? 'resident MiB' : 'ms to ready'} by service: ${listed}`,
          }),
    };
  };
  return [
    ratioTarget(
      'PIX create throughput, ratio to the naive server (zero errors)',
      pix,
      'naive',
      1.0,
      'create',
    ),
    ratioTarget(
      'PIX create throughput, ratio to the same-work server (zero errors)',
      pix,
      'same-work',
      1.3,
      'create',
    ),
    ratioTarget('GET throughput, ratio to the naive server (zero errors)', get, 'naive', 1.0, 'read'),
    below(
      'PIX create p99 at 50 requests/s',
      25,
      at50?.figures.p99,
      'ms',
      at50?.cpuMsPerRequest,
      'create at 50/s',
    ),
    below(
      'event lag p99 (sandbox paid → signed payment.confirmed)',
      50,
      report.eventLag.payments > 0 ? report.eventLag.p99 : undefined,
      'ms',
      report.eventLag.cpuMsPerPayment,
      'payment paid',
    ),
    {
      ...below(
        "total CPU per PIX create (every process, the CPU table's Total)",
        6,
        ourCpu === undefined ? undefined : Number(fixed(ourCpu, 2)),
        'ms',
        ourPix?.cpuMsPerRequest,
        'create',
        true,
      ),
      ...(ourCpu === undefined ? {} : { value: `${fixed(ourCpu, 2)} ms` }),
    },
    budgetTarget(
      'resident memory of each service, idle (the largest)',
      IDLE_MEMORY_BUDGET_MIB,
      'MiB',
      report.memoryMiB?.idle,
    ),
    budgetTarget(
      "resident memory of each service at its peak under the bench's load (the largest)",
      PEAK_MEMORY_BUDGET_MIB,
      'MiB',
      report.memoryMiB?.peak,
    ),
    budgetTarget(
      'time from start to ready of each service (the slowest, median of its starts)',
      START_TO_READY_BUDGET_MS,
      'ms',
      report.startToReadyMs,
    ),
  ];
}

/** The run as Markdown: targets, load phases with ratios, CPU per request per process, lag, webhooks, invariants. */
export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [];
  const checks = targets(report);
  lines.push(
    `# Stack benchmark — ${report.date}`,
    '',
    `Command: \`${report.command}\` at commit \`${report.commit}\`; ` +
      (report.serviceNodeFlags
        ? `services run as \`node ${[...report.serviceNodeFlags, '<file>'].join(' ')}\`; `
        : '') +
      `${report.machine.cpus} × ${report.machine.cpuModel}, ` +
      `${report.machine.memoryGiB} GiB, Node ${report.machine.node}; load generator on the same machine; ` +
      `${report.replicas === 1 ? 'one process per service' : `${report.replicas} replicas of payment, pix-adapter and webhook-dispatcher`}; ` +
      `per-key rate limit on (60/min), load spread over ${report.keys} keys. Two one-process yardsticks in the same ` +
      'run (express + pg, each its own process and database): **naive** (API key, joi, fee, BR Code, QR, one INSERT; no ' +
      'PSP, no outbox) and **same-work** (the same, plus the cob registered at the PSP with an OAuth token and ' +
      `\`PUT /cob/{txid}\`, its dynamic BR Code, and the payment with its idempotency key and an outbox row in one transaction${report.sameWorkPsp ? `; its PSP: ${report.sameWorkPsp}` : ''}).`,
    ...(report.autovacuumStoodIn
      ? [
          '',
          "The server's autovacuum is off: before each phase the bench vacuumed and analysed every database of the run " +
            'itself, so that no phase starts on the dead rows and missing statistics of the phases before it.',
        ]
      : []),
    '',
    '## Targets',
    '',
    '| Figure | Target | This run | Met | Short by / over |',
    '|---|---|---|---|---|',
    ...checks.map(
      (t) => `| ${t.figure} | ${t.target} | ${t.value} | ${t.met ? 'yes' : '**no**'} | ${t.gap ?? ''} |`,
    ),
    '',
  );
  const missed = checks.filter((t) => !t.met);
  if (missed.length > 0)
    lines.push(
      'What the profile shows for each target missed (ms of CPU per request, biggest processes of the stack first):',
      '',
      ...missed.map((t) => `- **${t.figure}**: ${t.value}, ${t.gap}. ${t.profile}.`),
      '',
    );
  lines.push(
    '## Load',
    '',
    '| Phase | System | Load | Throughput (req/s) | Ratio to naive | Ratio to same-work | p50 / p95 / p99 (ms) | Errors | DB transactions per request | Broker publishes per request |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const ratioTo = (p: PhaseResult, yardstick: SystemName) => {
    const base = p.system === yardstick ? undefined : phase(report, p.name, yardstick);
    return base && base.figures.throughput > 0
      ? `${fixed(p.figures.throughput / base.figures.throughput, 2)}x`
      : '';
  };
  for (const p of report.phases) {
    const load = p.shape.rate
      ? `open loop ${p.shape.rate}/s, ${p.shape.seconds} s`
      : `${p.shape.connections} connections, ${p.shape.requests === undefined ? `${p.shape.seconds} s` : `${p.shape.requests} requests`}`;
    const publishes = p.publishesPerRequest
      ? Object.entries(p.publishesPerRequest)
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => `${kind} ${fixed(n, 2)}`)
          .join(', ')
      : p.system === 'ours'
        ? 'n/a'
        : '';
    lines.push(
      `| ${p.name} | ${p.system} | ${load} | ${fixed(p.figures.throughput)} | ${ratioTo(p, 'naive')} | ${p.system === 'ours' ? ratioTo(p, 'same-work') : ''} | ${p.figures.p50} / ${p.figures.p95} / ${p.figures.p99} | ${p.figures.errors} | ${fixed(p.transactionsPerRequest, 2)} | ${publishes} |`,
    );
  }
  const processes = [...new Set(report.phases.flatMap((p) => Object.keys(p.cpuMsPerRequest)))];
  lines.push(
    '',
    '## CPU per request (ms of CPU time per answered request, by process)',
    '',
    `| Phase | System | ${processes.join(' | ')} | Total |`,
    `|---|---|${processes.map(() => '---').join('|')}|---|`,
  );
  for (const p of report.phases) {
    const cells = processes.map((name) => fixed(p.cpuMsPerRequest[name] ?? 0, 2));
    const total = totalCpu(p.cpuMsPerRequest);
    lines.push(`| ${p.name} | ${p.system} | ${cells.join(' | ')} | ${fixed(total, 2)} |`);
  }
  const ourPix = phase(report, 'POST /v1/payments pix', 'ours');
  if (ourPix) {
    const [name, ms] = Object.entries(ourPix.cpuMsPerRequest)
      .filter(([process]) => !NOT_THE_STACK.has(process))
      .sort((a, b) => b[1] - a[1])[0] ?? ['?', 0];
    lines.push('', `Biggest CPU cost per PIX create: **${name}** (${fixed(ms, 2)} ms).`);
  }
  lines.push(
    '',
    '## Events and webhooks',
    '',
    `Event lag over ${report.eventLag.payments} payments paid at ${report.eventLag.payRate}/s (simulate request sent → signed ` +
      `\`payment.confirmed\` received over HTTPS): p50 ${report.eventLag.p50} ms, p99 ${report.eventLag.p99} ms, max ${report.eventLag.max} ms.` +
      (report.eventLag.simulateRetries
        ? ` ${report.eventLag.simulateRetries} simulate requests of the run were answered 503 and asked again.`
        : '') +
      (report.eventLag.cpuMsPerPayment
        ? ` CPU per payment paid over the phase: ${profileOf(report.eventLag.cpuMsPerPayment)}.`
        : ''),
    '',
    '| Deliveries | Count | Per second | CPU per delivery, biggest first (ms) |',
    '|---|---|---|---|',
    ...report.webhookRates.map(
      (w) =>
        `| ${w.label} | ${w.deliveries} | ${fixed(w.perSecond, 0)} | ${biggestCosts(w.cpuMsPerDelivery)} |`,
    ),
    '',
    ...(report.memoryMiB
      ? [
          '## Memory and start-up (resident MiB per process, the largest of its replicas; ms from start to ready)',
          '',
          '| Service | Idle, before the load | Peak, over the run | Start to ready |',
          '|---|---|---|---|',
          ...Object.keys(report.memoryMiB.idle).map(
            (name) =>
              `| ${name} | ${report.memoryMiB!.idle[name]} | ${report.memoryMiB!.peak[name] ?? '?'} | ` +
              `${report.startToReadyMs?.[name] ?? '?'} |`,
          ),
          '',
        ]
      : []),
    '## Invariants',
    '',
    '| Invariant | Held | Detail |',
    '|---|---|---|',
    ...report.invariants.map((i) => `| ${i.name} | ${i.held ? 'yes' : '**no**'} | ${i.detail} |`),
    '',
  );
  return lines.join('\n');
}
