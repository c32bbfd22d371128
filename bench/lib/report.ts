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

export interface PhaseResult {
  name: string;
  system: 'ours' | 'baseline';
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
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string };
  replicas: number;
  keys: number;
  phases: PhaseResult[];
  eventLag: { payments: number; payRate: number; p50: number; p99: number; max: number };
  webhookRates: Array<WebhookRate & { endpoints: number; label: string }>;
  invariants: Array<{ name: string; held: boolean; detail: string }>;
}

const fixed = (n: number, digits = 1) => n.toFixed(digits);

function phase(report: BenchReport, name: string, system: 'ours' | 'baseline'): PhaseResult | undefined {
  return report.phases.find((p) => p.name === name && p.system === system);
}

/** The issue's targets, each checked against this run. */
function targets(
  report: BenchReport,
): Array<{ figure: string; target: string; value: string; met: boolean }> {
  const ourPix = phase(report, 'POST /v1/payments pix', 'ours');
  const basePix = phase(report, 'POST /v1/payments pix', 'baseline');
  const ourGet = phase(report, 'GET /v1/payments/{id}', 'ours');
  const baseGet = phase(report, 'GET /v1/payments/{id}', 'baseline');
  const at50 = phase(report, 'POST /v1/payments pix at 50/s', 'ours');
  const ratio = (a?: PhaseResult, b?: PhaseResult) =>
    a && b && b.figures.throughput > 0 ? a.figures.throughput / b.figures.throughput : 0;
  const pixRatio = ratio(ourPix, basePix);
  const getRatio = ratio(ourGet, baseGet);
  const bestWebhooks = Math.max(...report.webhookRates.map((w) => w.perSecond));
  return [
    {
      figure: 'PIX create throughput, ratio to the baseline (zero errors)',
      target: '≥ 2.0x',
      value: `${fixed(pixRatio, 2)}x, ${ourPix?.figures.errors ?? '?'} errors`,
      met: pixRatio >= 2 && ourPix?.figures.errors === 0,
    },
    {
      figure: 'PIX create p99 at 50 requests/s',
      target: '< 50 ms',
      value: `${at50?.figures.p99 ?? '?'} ms`,
      met: (at50?.figures.p99 ?? Infinity) < 50,
    },
    {
      figure: 'GET throughput, ratio to the baseline',
      target: '≥ 0.7x',
      value: `${fixed(getRatio, 2)}x`,
      met: getRatio >= 0.7,
    },
    {
      figure: 'event lag p99 (sandbox paid → signed payment.confirmed)',
      target: '< 100 ms',
      value: `${report.eventLag.p99} ms`,
      met: report.eventLag.p99 < 100,
    },
    {
      figure: 'webhook deliveries/s to healthy receivers',
      target: '≥ 500/s',
      value: `${fixed(bestWebhooks, 0)}/s`,
      met: bestWebhooks >= 500,
    },
  ];
}

/** The run as Markdown: targets, load phases with ratios, CPU per request per process, lag, webhooks, invariants. */
export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [];
  lines.push(
    `# Stack benchmark — ${report.date}`,
    '',
    `Command: \`${report.command}\` at commit \`${report.commit}\`; ${report.machine.cpus} × ${report.machine.cpuModel}, ` +
      `${report.machine.memoryGiB} GiB, Node ${report.machine.node}; load generator on the same machine; ` +
      `${report.replicas === 1 ? 'one process per service' : `${report.replicas} replicas of payment, pix-adapter and webhook-dispatcher`}; ` +
      `per-key rate limit on (60/min), load spread over ${report.keys} keys.`,
    '',
    '## Targets',
    '',
    '| Figure | Target | This run | Met |',
    '|---|---|---|---|',
    ...targets(report).map((t) => `| ${t.figure} | ${t.target} | ${t.value} | ${t.met ? 'yes' : 'no'} |`),
    '',
    '## Load',
    '',
    '| Phase | System | Load | Throughput (req/s) | Ratio to baseline | p50 / p95 / p99 (ms) | Errors | DB transactions per request | Broker publishes per request |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const p of report.phases) {
    const base = p.system === 'ours' ? phase(report, p.name, 'baseline') : undefined;
    const ratio = base ? `${fixed(p.figures.throughput / base.figures.throughput, 2)}x` : '';
    const load = p.shape.rate
      ? `open loop ${p.shape.rate}/s, ${p.shape.seconds} s`
      : `${p.shape.connections} connections, ${p.shape.seconds} s`;
    const publishes = p.publishesPerRequest
      ? Object.entries(p.publishesPerRequest)
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => `${kind} ${fixed(n, 2)}`)
          .join(', ')
      : p.system === 'ours'
        ? 'n/a'
        : '';
    lines.push(
      `| ${p.name} | ${p.system} | ${load} | ${fixed(p.figures.throughput)} | ${ratio} | ${p.figures.p50} / ${p.figures.p95} / ${p.figures.p99} | ${p.figures.errors} | ${fixed(p.transactionsPerRequest, 2)} | ${publishes} |`,
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
    const total = Object.values(p.cpuMsPerRequest).reduce((a, b) => a + b, 0);
    lines.push(`| ${p.name} | ${p.system} | ${cells.join(' | ')} | ${fixed(total, 2)} |`);
  }
  const ourPix = phase(report, 'POST /v1/payments pix', 'ours');
  if (ourPix) {
    const [name, ms] = Object.entries(ourPix.cpuMsPerRequest)
      .filter(([process]) => process !== 'load generator')
      .sort((a, b) => b[1] - a[1])[0] ?? ['?', 0];
    lines.push('', `Biggest CPU cost per PIX create: **${name}** (${fixed(ms, 2)} ms).`);
  }
  lines.push(
    '',
    '## Events and webhooks',
    '',
    `Event lag over ${report.eventLag.payments} payments paid at ${report.eventLag.payRate}/s (simulate request sent → signed ` +
      `\`payment.confirmed\` received over HTTPS): p50 ${report.eventLag.p50} ms, p99 ${report.eventLag.p99} ms, max ${report.eventLag.max} ms.`,
    '',
    '| Deliveries | Count | Per second | CPU per delivery, biggest first (ms) |',
    '|---|---|---|---|',
    ...report.webhookRates.map(
      (w) =>
        `| ${w.label} | ${w.deliveries} | ${fixed(w.perSecond, 0)} | ${biggestCosts(w.cpuMsPerDelivery)} |`,
    ),
    '',
    '## Invariants',
    '',
    '| Invariant | Held | Detail |',
    '|---|---|---|',
    ...report.invariants.map((i) => `| ${i.name} | ${i.held ? 'yes' : '**no**'} | ${i.detail} |`),
    '',
  );
  return lines.join('\n');
}
