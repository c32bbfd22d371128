import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '../..');

describe('pnpm bench:ledger --smoke', () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-ledger-smoke-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('drains a backlog, times events at a steady rate and writes the table and the figures', async () => {
    const { stdout } = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'bench/ledger-bench.ts'), '--smoke', '--out', out],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    for (const heading of ['## Targets', '## Cost per posting', '## Invariants'])
      expect(stdout).toContain(heading);
    const json = readdirSync(out).find((name) => name.endsWith('.json'))!;
    const report = JSON.parse(readFileSync(join(out, json), 'utf8')) as {
      throughput: { postings: number; postingsPerSecond: number; cpuMsPerPosting: Record<string, number> };
      lag: { events: number; p99: number };
      invariants: Array<{ name: string; held: boolean }>;
    };
    expect(report.throughput.postingsPerSecond).toBeGreaterThan(0);
    expect(Object.keys(report.throughput.cpuMsPerPosting)).toEqual(['ledger', 'postgresql', 'rabbitmq']);
    expect(report.lag.events).toBe(100);
    expect(report.lag.p99).toBeGreaterThan(0);
    expect(report.invariants).toHaveLength(3);
    expect(report.invariants.filter((i) => !i.held)).toEqual([]);
  }, 300_000);
});
