import { normalizeReport, renderComparison } from '../lib/compare';
import {
  profileOf,
  renderMarkdown,
  targets,
  type BenchReport,
  type PhaseResult,
  type SystemName,
} from '../lib/report';

const stackCpu = {
  'api-gateway': 1.2,
  payment: 1.8,
  'pix-adapter': 3.2,
  'psp-simulator': 0.6,
  naive: 0,
  'same-work': 0,
  postgresql: 2.5,
  rabbitmq: 1.7,
  'load generator': 4,
};

function phaseOf(
  name: string,
  system: SystemName,
  throughput: number,
  cpuMsPerRequest: Record<string, number>,
  extra: Partial<PhaseResult['figures']> = {},
): PhaseResult {
  return {
    name,
    system,
    shape: name.includes('/s') ? { connections: 0, seconds: 10, rate: 50 } : { connections: 32, seconds: 10 },
    figures: { requests: 100, throughput, p50: 5, p95: 10, p99: 20, errors: 0, statuses: {}, ...extra },
    distinctCreated: 100,
    cpuMsPerRequest,
    transactionsPerRequest: 2,
  };
}

function reportOf(phases: PhaseResult[], lagP99 = 40): BenchReport {
  return {
    command: 'pnpm bench:stack',
    date: '2026-11-30T00:00:00.000Z',
    commit: 'abc1234',
    machine: { cpus: 2, cpuModel: 'test', memoryGiB: 8, node: 'v20' },
    replicas: 1,
    keys: 10,
    sameWorkPsp: "the stack's own PSP simulator",
    phases,
    eventLag: {
      payments: 10,
      payRate: 20,
      p50: 20,
      p99: lagP99,
      max: lagP99,
      cpuMsPerPayment: { 'webhook-dispatcher': 2, postgresql: 3, 'load generator': 9 },
    },
    webhookRates: [
      { endpoints: 1, label: 'to 1 receiver', deliveries: 10, perSecond: 300, cpuMsPerDelivery: {} },
    ],
    invariants: [{ name: 'all good', held: true, detail: '' }],
  };
}

const pix = 'POST /v1/payments pix';
const get = 'GET /v1/payments/{id}';
const at50 = 'POST /v1/payments pix at 50/s';

/** A run that misses every target: the figures of the issue. */
const missing = reportOf(
  [
    phaseOf(pix, 'naive', 130.6, { naive: 5.7, postgresql: 0.7 }),
    phaseOf(pix, 'same-work', 100, { 'same-work': 6.5, postgresql: 1.2, 'psp-simulator': 0.8 }),
    phaseOf(pix, 'ours', 93.9, stackCpu),
    phaseOf(get, 'naive', 3778, { naive: 0.22, postgresql: 0.14 }),
    phaseOf(get, 'ours', 1396, { 'api-gateway': 0.38, payment: 0.26, rabbitmq: 0.3 }),
    phaseOf(at50, 'ours', 50, stackCpu, { p99: 37.4 }),
  ],
  56,
);

describe('the stack bench report', () => {
  it('checks the issue targets: both yardsticks, GET, p99 at 50/s, event lag and CPU per create', () => {
    const checks = targets(missing);
    expect(checks.map((c) => [c.target, c.value, c.met, c.gap])).toEqual([
      ['≥ 1.0x', '0.72x (93.9 vs 130.6 requests/s), 0 errors', false, '0.28x short'],
      ['≥ 1.3x', '0.94x (93.9 vs 100.0 requests/s), 0 errors', false, '0.36x short'],
      ['≥ 1.0x', '0.37x (1396.0 vs 3778.0 requests/s), 0 errors', false, '0.63x short'],
      ['< 25 ms', '37.4 ms', false, '12.4 ms over'],
      ['< 50 ms', '56 ms', false, '6.0 ms over'],
      ['≤ 6 ms', '15.00 ms', false, '9.0 ms over'],
      ['≤ 80 MiB', '?', false, 'not measured'],
      ['≤ 150 MiB', '?', false, 'not measured'],
      ['≤ 1500 ms', '?', false, 'not measured'],
    ]);
  });

  it("checks each service's memory and start-up against the budget: the largest, and every service in the profile", () => {
    const measured: BenchReport = {
      ...missing,
      memoryMiB: { idle: { payment: 117, ledger: 76 }, peak: { payment: 140, ledger: 98 } },
      startToReadyMs: { payment: 1320, ledger: 1710 },
    };
    const [idle, peak, ready] = targets(measured).slice(-3);
    expect(idle).toMatchObject({ value: '117 MiB (payment)', met: false, gap: '37 MiB over' });
    expect(idle!.profile).toBe('resident MiB by service: payment 117, ledger 76');
    expect(peak).toMatchObject({ target: '≤ 150 MiB', value: '140 MiB (payment)', met: true });
    expect(ready).toMatchObject({
      target: '≤ 1500 ms',
      value: '1710 ms (ledger)',
      met: false,
      gap: '210 ms over',
    });
    expect(ready!.profile).toBe('ms to ready by service: ledger 1710, payment 1320');
    expect(renderMarkdown(measured)).toContain('| payment | 117 | 140 | 1320 |');
    expect(renderMarkdown(measured)).toContain('| ledger | 76 | 98 | 1710 |');
  });

  it('says for each missed target what the profile shows: the biggest processes of the stack, then the total', () => {
    const checks = targets(missing);
    expect(checks[0]!.profile).toBe(
      'CPU per create: ours 15.00 ms, naive 6.40 ms; ours by process: pix-adapter 3.20, postgresql 2.50, ' +
        'payment 1.80, rabbitmq 1.70 (total 15.00 ms)',
    );
    expect(checks[1]!.profile).toContain('same-work 8.50 ms');
    expect(checks[2]!.profile).toContain('ours by process: api-gateway 0.38, rabbitmq 0.30, payment 0.26');
    expect(checks[4]!.profile).toBe(
      'CPU per payment paid by process: postgresql 3.00, webhook-dispatcher 2.00 (total 14.00 ms)',
    );
    expect(checks[5]!.profile).toContain('pix-adapter 3.20');
    const markdown = renderMarkdown(missing);
    expect(markdown).toContain(
      '| PIX create throughput, ratio to the naive server (zero errors) | ≥ 1.0x | 0.72x (93.9 vs 130.6 requests/s), 0 errors | **no** | 0.28x short |',
    );
    expect(markdown).toContain('What the profile shows for each target missed');
    expect(markdown).toContain(
      "- **total CPU per PIX create (every process, the CPU table's Total)**: 15.00 ms, 9.0 ms over. CPU per create by process: pix-adapter 3.20",
    );
  });

  it('leaves the gap and the profile out of a target met, and errors miss a throughput target', () => {
    const met: BenchReport = {
      ...reportOf([
        phaseOf(pix, 'naive', 100, { naive: 5 }),
        phaseOf(pix, 'same-work', 70, { 'same-work': 6 }),
        phaseOf(pix, 'ours', 140, { payment: 2, postgresql: 1 }),
        phaseOf(get, 'naive', 1000, { naive: 0.2 }),
        phaseOf(get, 'ours', 1200, { payment: 0.2 }, { errors: 3 }),
        phaseOf(at50, 'ours', 50, { payment: 2 }, { p99: 12 }),
      ]),
      memoryMiB: { idle: { payment: 70 }, peak: { payment: 120 } },
      startToReadyMs: { payment: 900 },
    };
    const checks = targets(met);
    expect(checks.map((c) => c.met)).toEqual([true, true, false, true, true, true, true, true, true]);
    expect(checks[2]!.gap).toBe('3 errors');
    expect(checks.filter((c) => c.met).every((c) => c.gap === undefined && c.profile === undefined)).toBe(
      true,
    );
    expect(renderMarkdown(met).match(/^- \*\*.*$/gm)).toEqual([expect.stringContaining('GET throughput')]);
  });

  it('gives every phase of ours its ratio to each yardstick in the load table', () => {
    const markdown = renderMarkdown(missing);
    expect(markdown).toContain('| Ratio to naive | Ratio to same-work |');
    expect(markdown).toMatch(
      /\| POST \/v1\/payments pix \| ours \| 32 connections, 10 s \| 93\.9 \| 0\.72x \| 0\.94x \|/,
    );
    expect(markdown).toMatch(
      /\| POST \/v1\/payments pix \| same-work \| 32 connections, 10 s \| 100\.0 \| 0\.77x \| +\|/,
    );
  });

  it('names an unmeasured figure instead of inventing one', () => {
    const checks = targets(reportOf([phaseOf(pix, 'ours', 90, stackCpu)]));
    expect(checks[1]).toMatchObject({
      value: 'not measured (no same-work phase)',
      met: false,
      gap: 'not measured',
      profile: 'not measured',
    });
    expect(checks[3]).toMatchObject({ value: '?', met: false, gap: 'not measured' });
  });

  it('ranks the profile without the load generator and the idle yardsticks', () => {
    expect(profileOf({ 'load generator': 9, naive: 8, 'same-work': 7, payment: 1 }, 2)).toBe(
      'payment 1.00 (total 25.00 ms)',
    );
  });

  it('compares two runs: each target before and after, every phase, the CPU per create by process', () => {
    const after = reportOf(
      [
        phaseOf(pix, 'naive', 120, { naive: 5.7 }),
        phaseOf(pix, 'same-work', 90, { 'same-work': 6.5 }),
        phaseOf(pix, 'ours', 120, { ...stackCpu, 'pix-adapter': 1.6 }),
        phaseOf(get, 'naive', 3000, { naive: 0.2 }),
        phaseOf(get, 'ours', 1500, { payment: 0.5 }),
        phaseOf(at50, 'ours', 50, stackCpu, { p99: 22 }),
      ],
      45,
    );
    const markdown = renderComparison(missing, after, 'QR once per charge');
    expect(markdown).toContain('# QR once per charge');
    expect(markdown).toContain(
      '| PIX create throughput, ratio to the naive server (zero errors) | ≥ 1.0x | 0.72x (93.9 vs 130.6 requests/s), 0 errors | 1.00x (120.0 vs 120.0 requests/s), 0 errors | yes |',
    );
    expect(markdown).toContain('| PIX create p99 at 50 requests/s | < 25 ms | 37.4 ms | 22 ms | yes |');
    expect(markdown).toContain('| POST /v1/payments pix | ours | 93.9 | 120.0 (+28 %) | 20 | 20 |');
    expect(markdown).toContain('| pix-adapter (ms) | 3.20 | 1.60 (-50 %) |');
    expect(markdown).toContain('| CPU, every process (ms) | 15.00 | 13.40 (-11 %) |');
    expect(markdown).toContain('| event lag p50 / p99 (ms) | 20 / 56 | 20 / 45 |');
  });

  it('reads a result from before the yardsticks: its baseline is the naive server', () => {
    const old = reportOf([
      { ...phaseOf(pix, 'naive', 189.4, { baseline: 5.67 }), system: 'baseline' as SystemName },
      phaseOf(pix, 'ours', 144.4, stackCpu),
    ]);
    const read = normalizeReport(old);
    expect(read.phases[0]).toMatchObject({ system: 'naive', cpuMsPerRequest: { naive: 5.67 } });
    expect(targets(read)[0]!.value).toBe('0.76x (144.4 vs 189.4 requests/s), 0 errors');
  });
});
