/**
 * `pnpm bench:dashboard`: the merchant dashboard with a business of many payments, in Chromium, against the whole
 * stack started as `npm start` starts it. A business signs up through the dashboard, makes N payments through the
 * public API with its key (a share of them paid in the sandbox), then every page is opened R times; it reports, per
 * page, the time from navigation to interactive (`domInteractive`) and to the load event (p50/p95/max), and the
 * JavaScript the page loads, compressed with gzip (the goals: under 1 s and under 300 KB).
 *
 *   pnpm bench:dashboard                  10,000 payments, each page opened 10 times
 *   pnpm bench:dashboard --smoke          200 payments, each page twice, results to a temporary folder
 *   pnpm bench:dashboard --payments 2000 --rounds 5
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { benchDatabasePool, startStack, type RunningStack } from '@gateway/testkit';
import { launchBrowser } from '@gateway/dashboard/test/support/browser';
import { signUp, uniqueEmail } from '@gateway/dashboard/test/support/accounts';
import { apiCall, inParallel } from './lib/accounts';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    payments: { type: 'string' },
    rounds: { type: 'string' },
    out: { type: 'string' },
  },
});
const smoke = flags.smoke!;
const paymentCount = Number(flags.payments ?? (smoke ? 200 : 10_000));
const rounds = Number(flags.rounds ?? (smoke ? 2 : 10));
if (!(paymentCount > 0) || !(rounds > 0)) {
  console.error('usage: pnpm bench:dashboard [--smoke] [--payments N] [--rounds N] [--out DIR]');
  process.exit(2);
}
const outDir =
  flags.out ?? (smoke ? mkdtempSync(join(tmpdir(), 'bench-dashboard-')) : join(__dirname, 'results'));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Payments created at once through the API. */
const CREATE_PARALLEL = 16;
/** One payment in this many is paid in the sandbox, so the balance and its transactions have something to show. */
const PAID_EVERY = 20;
/** How often a setup request the gateway answered 503 is sent. */
const SETUP_TRIES = 5;
const GOAL_INTERACTIVE_MS = 1000;
const GOAL_JS_BYTES = 300 * 1024;

interface PageFigures {
  page: string;
  path: string;
  opened: number;
  interactive: { p50: number; p95: number; max: number };
  load: { p50: number; p95: number; max: number };
  /** Scripts the page loads or holds, gzip-compressed, in bytes. */
  jsGzipBytes: number;
  htmlGzipBytes: number;
}

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const figures = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted[sorted.length - 1] ?? 0 };
};

/** Opens `path` `rounds` times and measures it as the browser saw it. */
async function measure(page: Page, baseUrl: string, name: string, path: string): Promise<PageFigures> {
  const interactive: number[] = [];
  const loaded: number[] = [];
  let jsGzipBytes = 0;
  let htmlGzipBytes = 0;
  for (let round = 0; round < rounds; round += 1) {
    const scripts: Array<Promise<number>> = [];
    const onResponse = (response: Response) => {
      if (response.request().resourceType() === 'script')
        scripts.push(response.body().then((body) => gzipSync(body).length));
    };
    page.on('response', onResponse);
    const response = await page.goto(`${baseUrl}${path}`, { waitUntil: 'load' });
    page.off('response', onResponse);
    if (!response || response.status() !== 200)
      throw new Error(`${path} answered ${response?.status() ?? 'nothing'}`);
    // The browser's navigation timing (its DOM types are not in this project's libraries).
    const timing = await page.evaluate(() => {
      const browserPerformance = performance as unknown as {
        getEntriesByType(type: 'navigation'): Array<{ domInteractive: number; loadEventEnd: number }>;
      };
      const [entry] = browserPerformance.getEntriesByType('navigation');
      return { interactive: entry!.domInteractive, load: entry!.loadEventEnd };
    });
    interactive.push(timing.interactive);
    loaded.push(timing.load);
    const inline = await page.$$eval('script:not([src])', (nodes) => nodes.map((n) => n.textContent ?? ''));
    jsGzipBytes =
      (await Promise.all(scripts)).reduce((sum, bytes) => sum + bytes, 0) +
      inline.reduce((sum, text) => sum + (text ? gzipSync(text).length : 0), 0);
    htmlGzipBytes = gzipSync(await response.body()).length;
  }
  return {
    page: name,
    path,
    opened: rounds,
    interactive: figures(interactive),
    load: figures(loaded),
    jsGzipBytes,
    htmlGzipBytes,
  };
}

function renderMarkdown(report: {
  date: string;
  command: string;
  machine: string;
  payments: number;
  pages: PageFigures[];
}): string {
  const ms = (value: number) => value.toFixed(0);
  const kb = (value: number) => (value / 1024).toFixed(1);
  return [
    `# Dashboard bench, ${report.date}`,
    '',
    `\`${report.command}\` on ${report.machine}; one business with ${report.payments} payments; each page opened`,
    `${report.pages[0]?.opened ?? 0} times in headless Chromium, whole stack as \`npm start\` runs it.`,
    '',
    '## Pages',
    '',
    '| page | interactive p50 | p95 | max | load p95 | JS (gzip) | HTML (gzip) |',
    '|---|---|---|---|---|---|---|',
    ...report.pages.map(
      (p) =>
        `| ${p.page} (\`${p.path}\`) | ${ms(p.interactive.p50)} ms | ${ms(p.interactive.p95)} ms | ${ms(p.interactive.max)} ms | ${ms(p.load.p95)} ms | ${kb(p.jsGzipBytes)} KB | ${kb(p.htmlGzipBytes)} KB |`,
    ),
    '',
    '## Targets',
    '',
    '| target | goal | worst page | met |',
    '|---|---|---|---|',
    (() => {
      const worst = Math.max(...report.pages.map((p) => p.interactive.p95));
      return `| every page interactive (p95) | < ${GOAL_INTERACTIVE_MS} ms | ${ms(worst)} ms | ${worst < GOAL_INTERACTIVE_MS ? 'yes' : 'no'} |`;
    })(),
    (() => {
      const worst = Math.max(...report.pages.map((p) => p.jsGzipBytes));
      return `| JavaScript of a first load (gzip) | < ${GOAL_JS_BYTES / 1024} KB | ${kb(worst)} KB | ${worst < GOAL_JS_BYTES ? 'yes' : 'no'} |`;
    })(),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const started = new Date();
  // The business's key makes every payment of the setup: its per-minute limit is lifted for the bench only.
  const stack: RunningStack = await startStack({
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...benchDatabasePool({ smoke }),
  });
  /**
   * A setup request, sent again under the same Idempotency-Key when the gateway answers that it is busy (a 503 when the
   * machine is loaded): the setup is not what is measured.
   */
  const setupCall = async (apiKey: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const idempotencyKey = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await apiCall(stack.gatewayUrl, apiKey, 'POST', path, body, {
          'idempotency-key': idempotencyKey,
        });
      } catch (err) {
        if (attempt >= SETUP_TRIES || !/: 503 /.test((err as Error).message)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  };
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    const apiKey = await signUp(page, stack.dashboardUrl, {
      company: 'Loja do Bench',
      email: uniqueEmail('bench'),
    });
    log(`creating ${paymentCount} payments`);
    const setupStart = performance.now();
    const ids = await inParallel(paymentCount, CREATE_PARALLEL, async (i) => {
      const created = await setupCall(apiKey, '/v1/payments', {
        payment_method: 'pix',
        amount: 1000 + (i % 50_000),
      });
      return created.payment_id as string;
    });
    const paid = ids.filter((_, i) => i % PAID_EVERY === 0);
    await inParallel(paid.length, CREATE_PARALLEL, (i) =>
      setupCall(apiKey, `/v1/sandbox/payments/${paid[i]}/simulate`, { outcome: 'paid' }),
    );
    log(`set up in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);
    const newest = ids[ids.length - 1]!;
    const pages: Array<[string, string]> = [
      ['Pagamentos', '/pagamentos'],
      ['Pagamentos pagos', '/pagamentos?status=paid'],
      ['Um pagamento', `/pagamentos/${paid[paid.length - 1] ?? newest}`],
      ['Saldo', '/saldo'],
      ['Chaves de API', '/chaves'],
      ['Equipe', '/equipe'],
    ];
    // One visit first: the first query plans and connections are not what a merchant waits for every time.
    for (const [, path] of pages) await page.goto(`${stack.dashboardUrl}${path}`);
    const measured: PageFigures[] = [];
    for (const [name, path] of pages) {
      measured.push(await measure(page, stack.dashboardUrl, name, path));
      log(`${name}: interactive p95 ${measured[measured.length - 1]!.interactive.p95.toFixed(0)} ms`);
    }
    const report = {
      command: `pnpm bench:dashboard ${process.argv.slice(2).join(' ')}`.trim(),
      date: started.toISOString(),
      machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`,
      payments: paymentCount,
      pages: measured,
    };
    const markdown = renderMarkdown(report);
    mkdirSync(outDir, { recursive: true });
    const stem = `dashboard-${started.toISOString().replace(/[:.]/g, '-')}${smoke ? '-smoke' : ''}`;
    writeFileSync(join(outDir, `${stem}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, `${stem}.md`), markdown);
    process.stdout.write(markdown);
  } finally {
    await browser.close();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
