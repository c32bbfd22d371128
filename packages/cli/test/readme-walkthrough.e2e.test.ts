import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_ADMIN_TOKEN } from '@gateway/config';
import { freePort, startStack, waitFor, type RunningStack } from '@gateway/testkit';

const root = join(__dirname, '../../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const example = join(root, 'examples/sdk-quickstart');
/** A terminal's commands end well within it (each CLI call is a second or two); the test gets a margin over it. */
const SCRIPT_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = SCRIPT_TIMEOUT_MS + 60_000;

/** The fenced blocks of `language` in the README section under `heading` (up to the next heading of its level or above). */
function blocksUnder(heading: string, language: string): string[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line === heading);
  if (start < 0) throw new Error(`the README has no heading ${heading}`);
  const level = heading.indexOf(' ');
  const blocks: string[] = [];
  let current: string[] | null = null;
  // Inside another language's block: its lines (a shell comment's `#`) are no headings.
  let otherBlock = false;
  for (const line of lines.slice(start + 1)) {
    if (otherBlock) otherBlock = line !== '```';
    else if (current === null && /^#+ /.test(line) && line.indexOf(' ') <= level) break;
    else if (current === null && line === `\`\`\`${language}`) current = [];
    else if (current === null && line.startsWith('```')) otherBlock = true;
    else if (current !== null && line === '```') {
      blocks.push(current.join('\n'));
      current = null;
    } else if (current !== null) current.push(line);
  }
  return blocks;
}

/** A long-running shell command (a terminal of the walkthrough), its output kept; in its own process group. */
class Terminal {
  readonly output: string[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;

  constructor(script: string, env: NodeJS.ProcessEnv, cwd = root) {
    this.child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, detached: true });
    this.child.stdout.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  text(): string {
    return this.output.join('');
  }

  /** Waits until the terminal shows `pattern`; failing, it says what the terminal showed. */
  async shows(pattern: RegExp, what: string): Promise<RegExpExecArray> {
    try {
      return await waitFor(async () => pattern.exec(this.text()) ?? undefined, {
        timeoutMs: 60_000,
        intervalMs: 100,
        what,
      });
    } catch (err) {
      throw new Error(`${String(err)}; the terminal shows:\n${this.text()}`);
    }
  }

  /** Ctrl-C, as in a terminal: SIGINT to its whole process group. */
  async interrupt(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null)
      process.kill(-this.child.pid!, 'SIGINT');
    await this.exited;
  }
}

/** A terminal's commands to their end; traced (`-x`), so a failure shows which command it was. */
function runScript(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) =>
    execFile(
      'bash',
      ['-xeuo', 'pipefail', '-c', script],
      { cwd: root, env, timeout: SCRIPT_TIMEOUT_MS },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    ),
  );
}

/** Where `npm start` keeps the demo business and its gateway URL, read by the walkthrough's first block. */
const demoFile = join(root, '.run/demo-business.json');
/** A developer's own file is put back after the test. */
const keptDemoFile = `${demoFile}.before-readme-test`;

/**
 * The README's walkthrough and SDK example as a newcomer runs them: the shell blocks exactly as written, against a
 * stack started by the launcher `npm start` runs on a PORT other than 3000, from terminals that set nothing (no PORT,
 * GATEWAY_URL or GATEWAY_API_KEY: the walkthrough finds the gateway and the demo business's key in what the launcher
 * wrote), and `gateway listen`'s CA trusted by the launcher on its own (no NODE_EXTRA_CA_CERTS given).
 */
describe("the README's walkthrough, run as written", () => {
  let stack: RunningStack;
  let tlsDir: string;
  let env: NodeJS.ProcessEnv;
  const terminals: Terminal[] = [];
  const terminal = (script: string, cwd?: string) => {
    const opened = new Terminal(script, env, cwd);
    terminals.push(opened);
    return opened;
  };

  beforeAll(async () => {
    tlsDir = join(mkdtempSync(join(tmpdir(), 'readme-')), 'listen-tls');
    if (existsSync(demoFile)) renameSync(demoFile, keptDemoFile);
    // As `npm start` runs it: the demo business, remembered in the default file, and the sandbox's operator token (the
    // CLI's default for a gateway on this machine, which the walkthrough's operator step relies on).
    stack = await startStack({
      GATEWAY_CLI_TLS_DIR: tlsDir,
      DEMO_BUSINESS: 'true',
      ADMIN_TOKEN: DEVELOPMENT_ADMIN_TOKEN,
    });
    await waitFor(() => (/demo API key:/.test(stack.logs.join('')) ? true : undefined), {
      what: 'the banner with the demo business',
      timeoutMs: 60_000,
    });
    expect(new URL(stack.gatewayUrl).port).not.toBe('3000');
    // Only what any shell has; the listen directory is the test's own, so a developer's is left alone.
    env = { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_CLI_TLS_DIR: tlsDir };
  }, 150_000);

  afterAll(async () => {
    await Promise.all(terminals.map((each) => each.interrupt()));
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await stack?.stop();
    rmSync(join(tlsDir, '..'), { recursive: true, force: true });
    rmSync(demoFile, { force: true });
    if (existsSync(keptDemoFile)) renameSync(keptDemoFile, demoFile);
  });

  test(
    'listen shows every event while terminal 2 pays by PIX and USDC, waits for paid, refunds, and pays out',
    async () => {
      const [setup, first, second, ...more] = blocksUnder('### A payment from creation to webhook', 'bash');
      // The setup finds the running stack (not port 3000) and the demo business's key by itself.
      const found = await runScript(`${setup}\necho "$GATEWAY_URL $GATEWAY_API_KEY"`, env);
      expect(found.output).toContain(`${stack.gatewayUrl} sk_test_`);
      expect(more).toEqual([]);
      expect(first).toMatch(/^# Terminal 1/);
      expect(second).toMatch(/^# Terminal 2/);

      const listen = terminal(`${setup}\n${first}`);
      // "Ready." and the webhook's record are two writes, which may reach the terminal apart: wait for the record.
      await listen.shows(
        /Ready\.[^]*signing secret\s+whsec_/,
        'listen ready, its webhook and signing secret shown',
      );
      // The launcher made the CA before the dispatcher started: listen made none, and said nothing about one.
      expect(listen.text()).not.toMatch(/local CA/);

      const ran = await runScript(`${setup}\n${second}`, env);
      if (ran.code !== 0) throw new Error(`terminal 2 ended with status ${ran.code}:\n${ran.output}`);
      expect(ran.output).toMatch(/^status\s+paid$/m);
      expect(ran.output).toMatch(/^status\s+succeeded$/m);
      expect(ran.output).toContain('"type":"refund.succeeded"');
      // The books: the balance, its movements and the month's statement, as CSV.
      expect(ran.output).toMatch(/available_brl/);
      expect(ran.output).toContain(
        'id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description',
      );
      expect(ran.output).toMatch(/^closing_balance_brl,-?\d+\.\d{2}/m);
      // The payout: the account the operator registered, the payout paid by the PSP with its endToEndId, its balance
      // transaction and its line in the statement.
      expect(ran.output).toMatch(/^pix_key\s+11222333000181$/m);
      expect(ran.output).toMatch(/^destination\.pix_key_masked\s+\*\*\.222\.333\/0001-\*\*$/m);
      const payoutId = /^payout_id\s+(po_\S+)$/m.exec(ran.output)?.[1];
      expect(payoutId).toEqual(expect.stringMatching(/^po_/));
      expect(ran.output).toMatch(/^external_id\s+E\d{20}[A-Za-z0-9]{11}$/m);
      expect(ran.output).toMatch(/^btx_\S+\s+payout\s+available\s+-50\s/m);
      expect(ran.output).toMatch(
        new RegExp(`^btx_[^,]+,[^,]+,payout,${payoutId},-50\\.00,0\\.00,-50\\.00,`, 'm'),
      );

      await listen.shows(
        /payment\.confirmed[\s\S]*payment\.confirmed/,
        'both payments confirmed in terminal 1',
      );
      await listen.shows(
        /refund\.succeeded\s+evt_\S+ → \[204\] answered by listen/,
        'the refund in terminal 1',
      );
      await listen.shows(/payout\.paid\s+evt_\S+ → \[204\] answered by listen/, 'the payout in terminal 1');
      await listen.interrupt();
      expect(listen.text()).toMatch(/✓ deleting the temporary webhook wh_/);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the SDK example is examples/sdk-quickstart/shop.ts, and runs as the README says',
    async () => {
      const code = readFileSync(join(example, 'shop.ts'), 'utf8');
      expect(blocksUnder('### SDK (`@gateway/sdk`, `packages/sdk`)', 'ts')).toEqual([code.trimEnd()]);
      const [block, ...others] = blocksUnder('### SDK (`@gateway/sdk`, `packages/sdk`)', 'bash');
      expect(others).toEqual([]);
      const commands = block!.split('\n').filter((line) => !line.startsWith('#'));
      expect(commands).toEqual([
        'pnpm gateway listen --forward-to http://localhost:4000/hook',
        'cd examples/sdk-quickstart && WEBHOOK_SECRET=whsec_... pnpm start',
        'pnpm gateway trigger payment.confirmed',
      ]);

      // The same commands, with GATEWAY_URL and GATEWAY_API_KEY set as in the walkthrough, a free port instead of
      // 4000 and the secret listen printed instead of whsec_...
      const [setup] = blocksUnder('### A payment from creation to webhook', 'bash');
      const shopPort = String(await freePort());
      env = { ...env, SHOP_PORT: shopPort };
      const listen = terminal(`${setup}\n${commands[0]!.replace('4000', shopPort)}`);
      const secret = (await listen.shows(/signing secret\s+(whsec_\S+)/, 'the signing secret'))[1]!;
      const shop = terminal(`${setup}\n${commands[1]!.replace('whsec_...', secret)}`);
      await shop.shows(/webhooks: http:\/\/localhost:\d+\/hook/, 'the example listening');
      expect(shop.text()).toMatch(/^show the buyer: 000201\S+/m);
      expect(shop.text()).toMatch(/^typed errors: true$/m);

      const trigger = await runScript(`${setup}\n${commands[2]!}`, env);
      expect(trigger.code).toBe(0);
      const paymentId = /^payment\s+(pay_\S+)$/m.exec(trigger.output)![1];
      await shop.shows(
        new RegExp(`^paid: ${paymentId}$`, 'm'),
        'the example verifying the payment.confirmed webhook',
      );
      await listen.shows(/payment\.confirmed\s+evt_\S+ → \[204\]/, 'listen relaying the example’s 204');
    },
    TEST_TIMEOUT_MS,
  );
  test(
    'the subscription walkthrough runs twelve paid cycles in curl, and the SDK example does the same',
    async () => {
      const heading = '### A subscription through twelve paid cycles';
      const [setup] = blocksUnder('### A payment from creation to webhook', 'bash');
      const [block, ...others] = blocksUnder(heading, 'bash');
      expect(others).toEqual([]);
      const ran = await runScript(`${setup}\n${block}`, env);
      if (ran.code !== 0)
        throw new Error(`the curl walkthrough ended with status ${ran.code}:\n${ran.output}`);
      const cycles = Array.from({ length: 12 }, (_, index) => `${index + 1} paid`);
      expect(ran.output).toContain(cycles.join('\n'));
      expect(ran.output).toMatch(/^cancelled$/m);

      const code = readFileSync(join(example, 'subscription.ts'), 'utf8');
      expect(blocksUnder(heading, 'ts')).toEqual([code.trimEnd()]);
      const sdk = await runScript(`${setup}\ncd examples/sdk-quickstart && pnpm -s subscription`, env);
      if (sdk.code !== 0) throw new Error(`the SDK example ended with status ${sdk.code}:\n${sdk.output}`);
      expect(sdk.output).toMatch(/^show the payer: 000201\S+/m);
      expect(sdk.output).toMatch(/^12 paid cycles of sub_\S+ active$/m);
    },
    TEST_TIMEOUT_MS,
  );
});
