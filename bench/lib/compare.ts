import { phase, targets, totalCpu, type BenchReport, type PhaseResult } from './report';

const fixed = (n: number, digits = 1) => n.toFixed(digits);

/** `a → b (+12 %)`; a dash where a side did not measure it. */
function change(before: number | undefined, after: number | undefined, digits = 1, unit = ''): string {
  const show = (n: number | undefined) => (n === undefined ? '–' : `${fixed(n, digits)}${unit}`);
  const delta =
    before !== undefined && after !== undefined && before !== 0
      ? ` (${after >= before ? '+' : ''}${fixed(((after - before) / before) * 100, 0)} %)`
      : '';
  return `${show(before)} | ${show(after)}${delta}`;
}

const PIX = 'POST /v1/payments pix';
const GET = 'GET /v1/payments/{id}';
const LIST = 'GET /v1/payments';
const AT50 = 'POST /v1/payments pix at 50/s';

/**
 * Before and after of one change, from two `pnpm bench:stack` results (the JSON it writes): every target's figure,
 * each system's throughput, the stack's CPU per create by process, its transactions per create, the event lag. The
 * machine is shared and noisy, so the throughputs are compared as ratios to the yardsticks of their own run, and
 * CPU per request, which depends little on what else runs, is given by process.
 */
export function renderComparison(
  before: BenchReport,
  after: BenchReport,
  title = 'Before and after',
): string {
  const lines: string[] = [
    `# ${title}`,
    '',
    `Before: \`${before.command}\` at \`${before.commit}\`, ${before.date}. After: \`${after.command}\` at ` +
      `\`${after.commit}\`, ${after.date}.`,
    '',
    '## Targets',
    '',
    '| Figure | Target | Before | After | Met after |',
    '|---|---|---|---|---|',
  ];
  const beforeChecks = targets(before);
  for (const check of targets(after)) {
    const was = beforeChecks.find((c) => c.figure === check.figure);
    lines.push(
      `| ${check.figure} | ${check.target} | ${was?.value ?? '–'} | ${check.value} | ${check.met ? 'yes' : `no, ${check.gap}`} |`,
    );
  }
  lines.push(
    '',
    '## Throughput and latency',
    '',
    '| Phase | System | Before (req/s) | After (req/s) | p99 before (ms) | p99 after (ms) |',
    '|---|---|---|---|---|---|',
  );
  const names = [...new Set(after.phases.map((p) => `${p.system}\u0000${p.name}`))];
  for (const key of names) {
    const [system, name] = key.split('\u0000') as [PhaseResult['system'], string];
    const b = phase(before, name, system);
    const a = phase(after, name, system);
    lines.push(
      `| ${name} | ${system} | ${change(b?.figures.throughput, a?.figures.throughput)} | ${b?.figures.p99 ?? '–'} | ${a?.figures.p99 ?? '–'} |`,
    );
  }
  const ourBefore = phase(before, PIX, 'ours');
  const ourAfter = phase(after, PIX, 'ours');
  const processes = [
    ...new Set([
      ...Object.keys(ourAfter?.cpuMsPerRequest ?? {}),
      ...Object.keys(ourBefore?.cpuMsPerRequest ?? {}),
    ]),
  ].sort((x, y) => (ourAfter?.cpuMsPerRequest[y] ?? 0) - (ourAfter?.cpuMsPerRequest[x] ?? 0));
  lines.push(
    '',
    '## Per PIX create of the stack (closed loop)',
    '',
    '| | Before | After |',
    '|---|---|---|',
    `| CPU, every process (ms) | ${change(ourBefore && totalCpu(ourBefore.cpuMsPerRequest), ourAfter && totalCpu(ourAfter.cpuMsPerRequest), 2)} |`,
    ...processes.map(
      (name) =>
        `| ${name} (ms) | ${change(ourBefore?.cpuMsPerRequest[name], ourAfter?.cpuMsPerRequest[name], 2)} |`,
    ),
    `| database transactions | ${change(ourBefore?.transactionsPerRequest, ourAfter?.transactionsPerRequest, 2)} |`,
    `| CPU per read, every process (ms) | ${change(cpuOf(before, GET), cpuOf(after, GET), 2)} |`,
    `| CPU per list of 10, every process (ms) | ${change(cpuOf(before, LIST), cpuOf(after, LIST), 2)} |`,
    `| p99 at 50/s (ms) | ${change(phase(before, AT50, 'ours')?.figures.p99, phase(after, AT50, 'ours')?.figures.p99)} |`,
    `| event lag p50 / p99 (ms) | ${before.eventLag.p50} / ${before.eventLag.p99} | ${after.eventLag.p50} / ${after.eventLag.p99} |`,
    '',
  );
  return lines.join('\n');
}

function cpuOf(report: BenchReport, name: string): number | undefined {
  const ours = phase(report, name, 'ours');
  return ours && totalCpu(ours.cpuMsPerRequest);
}

/**
 * A result as this bench reads it: runs from before the two yardsticks named the naive server `baseline` (its phases'
 * system and its CPU column).
 */
export function normalizeReport(report: BenchReport): BenchReport {
  const rename = (name: string) => (name === 'baseline' ? 'naive' : name);
  return {
    ...report,
    phases: report.phases.map((p) => ({
      ...p,
      system: rename(p.system) as PhaseResult['system'],
      cpuMsPerRequest: Object.fromEntries(Object.entries(p.cpuMsPerRequest).map(([k, v]) => [rename(k), v])),
    })),
  };
}
