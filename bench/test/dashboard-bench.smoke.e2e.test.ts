import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '../..');

describe('pnpm bench:dashboard --smoke', () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-dashboard-smoke-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('opens every page of a business with payments in Chromium and writes the timings and the JavaScript weight', async () => {
    const { stdout } = await run(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'bench/dashboard-bench.ts'), '--smoke', '--out', out],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    for (const heading of ['## Pages', '## Targets']) expect(stdout).toContain(heading);
    const json = readdirSync(out).find((name) => name.endsWith('.json'))!;
    const report = JSON.parse(readFileSync(join(out, json), 'utf8')) as {
      payments: number;
      pages: Array<{ page: string; opened: number; interactive: { p95: number }; htmlGzipBytes: number }>;
    };
    expect(report.payments).toBe(200);
    expect(report.pages.map((p) => p.page)).toEqual(
      expect.arrayContaining(['Pagamentos', 'Um pagamento', 'Saldo', 'Chaves de API', 'Equipe']),
    );
    for (const page of report.pages) {
      expect(page.opened).toBe(2);
      expect(page.interactive.p95).toBeGreaterThan(0);
      expect(page.htmlGzipBytes).toBeGreaterThan(0);
    }
  }, 400_000);
});
