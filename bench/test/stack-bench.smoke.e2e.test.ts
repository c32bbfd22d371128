import { serviceNames, webServiceNames } from '@gateway/contracts';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '../..');

describe('pnpm bench:stack --smoke', () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  // Every phase, a stack start and two yardsticks, CPU-bound on two cores shared with the other jest worker: 245 s in a
  // clean run of the suite, past 300 s when more ran beside it; hence the bound of 600 s.
  it('runs every phase against the stack and both yardsticks and writes the table and the figures', async () => {
    const { stdout } = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'bench/stack-bench.ts'), '--smoke', '--out', out],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    for (const heading of [
      '## Targets',
      '## Load',
      '## CPU per request',
      '## Events and webhooks',
      '## Invariants',
    ])
      expect(stdout).toContain(heading);
    const json = readdirSync(out).find((name) => name.endsWith('.json'))!;
    const report = JSON.parse(readFileSync(join(out, json), 'utf8')) as {
      phases: Array<{
        name: string;
        system: string;
        figures: { requests: number; statuses: Record<string, number> };
        cpuMsPerRequest: object;
      }>;
      eventLag: { payments: number };
      webhookRates: Array<{ deliveries: number }>;
      invariants: Array<{ name: string; held: boolean }>;
      memoryMiB?: { idle: Record<string, number>; peak: Record<string, number> };
      startToReadyMs?: Record<string, number>;
    };
    const phases = report.phases.map((p) => `${p.system} ${p.name}`);
    expect(phases).toEqual(
      expect.arrayContaining([
        'naive POST /v1/payments pix',
        'same-work POST /v1/payments pix',
        'ours POST /v1/payments pix',
        'ours POST /v1/payments crypto',
        'naive GET /v1/payments/{id}',
        'same-work GET /v1/payments/{id}',
        'ours GET /v1/payments/{id}',
        'ours POST /v1/payments pix at 50/s',
        'naive POST /v1/payments pix at 50/s',
        'same-work POST /v1/payments pix at 50/s',
      ]),
    );
    expect(report.phases.every((p) => p.figures.requests > 0)).toBe(true);
    expect(Object.keys(report.phases[0]!.cpuMsPerRequest)).toEqual(
      expect.arrayContaining([
        'api-gateway',
        'payment',
        'pix-adapter',
        'naive',
        'same-work',
        'psp-simulator',
        'postgresql',
        'rabbitmq',
      ]),
    );
    // The same-work server registers its cobs at the stack's PSP simulator: it and the simulator both work for it.
    const sameWorkPix = report.phases.find(
      (p) => p.system === 'same-work' && p.name === 'POST /v1/payments pix',
    )!;
    expect(Object.keys(sameWorkPix.figures.statuses)).toEqual(['201']);
    expect(report.eventLag.payments).toBeGreaterThan(0);
    expect(report.webhookRates.every((w) => w.deliveries > 0)).toBe(true);
    expect(report.invariants.filter((i) => !i.held)).toEqual([]);
    const latest = readFileSync(join(out, 'latest.md'), 'utf8');
    // Every service's resident memory, idle and at its peak, in MiB, and its time from start to ready (the budget's
    // figures): a start takes a node process's own start at least.
    for (const name of [...serviceNames, ...webServiceNames]) {
      expect(report.memoryMiB!.idle[name]).toBeGreaterThan(20);
      expect(report.memoryMiB!.peak[name]).toBeGreaterThanOrEqual(report.memoryMiB!.idle[name]!);
      expect(report.startToReadyMs![name]).toBeGreaterThan(30);
    }
    expect(latest).toContain('| Start to ready |');
    expect(latest).toContain('## Targets');
    expect(latest).toContain('| Ratio to naive | Ratio to same-work |');
    expect(latest).toContain('PIX create throughput, ratio to the same-work server');
  }, 600_000);
});
