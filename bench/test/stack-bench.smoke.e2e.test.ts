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

  it('runs every phase against the stack and the baseline and writes the table and the figures', async () => {
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
      phases: Array<{ name: string; system: string; figures: { requests: number }; cpuMsPerRequest: object }>;
      eventLag: { payments: number };
      webhookRates: Array<{ deliveries: number }>;
      invariants: Array<{ name: string; held: boolean }>;
    };
    const phases = report.phases.map((p) => `${p.system} ${p.name}`);
    expect(phases).toEqual(
      expect.arrayContaining([
        'baseline POST /v1/payments pix',
        'ours POST /v1/payments pix',
        'ours POST /v1/payments crypto',
        'baseline GET /v1/payments/{id}',
        'ours GET /v1/payments/{id}',
        'ours POST /v1/payments pix at 50/s',
      ]),
    );
    expect(report.phases.every((p) => p.figures.requests > 0)).toBe(true);
    expect(Object.keys(report.phases[0]!.cpuMsPerRequest)).toEqual(
      expect.arrayContaining(['api-gateway', 'payment', 'pix-adapter', 'baseline', 'postgresql', 'rabbitmq']),
    );
    expect(report.eventLag.payments).toBeGreaterThan(0);
    expect(report.webhookRates.every((w) => w.deliveries > 0)).toBe(true);
    expect(report.invariants.filter((i) => !i.held)).toEqual([]);
    expect(readFileSync(join(out, 'latest.md'), 'utf8')).toContain('## Targets');
  }, 300_000);
});
