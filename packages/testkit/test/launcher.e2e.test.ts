import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processMemoryEnvironment, processNodeFlags } from '@gateway/config';
import { jsonLogLines, metricsServices, stackClient, startStack, waitFor, type RunningStack } from '../src';

const root = join(__dirname, '../../..');

/** Every process the launcher starts, by its name in the process table. */
const everyProcess = [
  'api-gateway',
  'dashboard',
  'psp-simulator',
  'solana-localnet',
  'mail-catcher',
  ...metricsServices,
];

/** Whether anything still accepts connections at `url`. */
const answers = (url: string): Promise<boolean> =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

describe('the launcher npm start runs (scripts/stack.ts)', () => {
  let stack: RunningStack;
  const demoDir = mkdtempSync(join(tmpdir(), 'demo-business-'));

  beforeAll(async () => {
    stack = await startStack({
      // As `npm start` runs it: the demo business, human-readable lines, every start line shown.
      DEMO_BUSINESS: 'true',
      DEMO_BUSINESS_FILE: join(demoDir, 'demo-business.json'),
      LOG_FORMAT: 'pretty',
      LOG_LEVEL: 'info',
      // A city with an accent: the PIX adapter and the PSP simulator read it by the same rule.
      MERCHANT_CITY: 'São Paulo',
      // Unprefixed names are nobody's here (PORT is the gateway's): a stand-in reading them could not bind or
      // would refuse the adapter's credentials.
      HOST: '203.0.113.1',
      CLIENT_ID: 'someone-else',
      CLIENT_SECRET: 'someone-elses-secret',
    });
  }, 150_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(demoDir, { recursive: true, force: true });
  });

  test('prints its banner last, once everything is up, every URL on the ports it was given, and readable lines', async () => {
    const banner = /\n={72}\n[\s\S]*?\n={72}\n/;
    const output = await waitFor(() => (banner.test(stack.logs.join('')) ? stack.logs.join('') : undefined), {
      what: 'the banner',
      timeoutMs: 60_000,
    });
    const bannerAt = output.search(banner);
    const shown = banner.exec(output)![0];
    const checkout = /demo checkout: (\S+)/.exec(shown)?.[1];
    const gatewayPort = new URL(stack.gatewayUrl).port;

    expect(shown).toContain(`dashboard:     ${stack.dashboardUrl}  (sign up at /cadastro)`);
    expect(shown).toContain(`gateway:       ${stack.gatewayUrl} `);
    expect(shown).toContain(`API reference: ${stack.gatewayUrl}/docs`);
    expect(shown).toContain(`PSP simulator: ${stack.pspUrl}`);
    expect(shown).toContain(`Solana RPC:    ${stack.solanaRpcUrl}`);
    expect(checkout).toMatch(new RegExp(`^http://localhost:${gatewayPort}/c/`));
    expect((await fetch(checkout!)).status).toBe(200);
    // Everything said it was up before the banner.
    const upAt = [
      'psp simulator ready',
      'stablecoin mints created',
      'api gateway listening',
      'dashboard listening',
    ].map((line) => output.indexOf(line));
    expect(upAt.every((at) => at > -1 && at < bannerAt)).toBe(true);
    // Lines shown for a person: time, level and message, no JSON.
    expect(output).toMatch(/psp-simulator\s+\| \[\d\d:\d\d:\d\d\.\d{3}\] INFO: psp simulator ready/);
    expect(jsonLogLines(stack)).toEqual([]);
  }, 90_000);

  test('the gateway answers /readyz 200 on the PORT it was given', async () => {
    expect(new URL(stack.gatewayUrl).port).not.toBe('3000');
    const ready = await fetch(`${stack.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await fetch(`${stack.gatewayUrl}/metrics`);
    expect(metrics.status).toBe(200);
  });

  test.each(metricsServices)('%s serves /metrics and /healthz on its own metrics port', async (service) => {
    const metrics = await fetch(`${stack.metricsUrls[service]}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(/^# HELP /m);
    expect((await fetch(`${stack.metricsUrls[service]}/healthz`)).status).toBe(200);
  });

  test('the stand-ins listen on PSP_SIMULATOR_PORT and SOLANA_LOCALNET_PORT, and the services reach them there', async () => {
    const health = await fetch(stack.solanaRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
    });
    expect(await health.json()).toMatchObject({ result: 'ok' });

    const client = stackClient(stack);
    const { apiKey } = await client.createBusiness('Loja do Lançador', {
      pix: { percent_bps: 99, fixed_centavos: 0 },
    });
    const created = await client.api(apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 1000,
      currency: 'brl',
    });
    expect(created).toMatchObject({ status: 201 });
    // EMV field 60 (merchant city), 9 characters, the accent dropped as a BR Code requires.
    expect(created.body.pix?.copia_e_cola).toContain('6009Sao Paulo');
  });

  test("every process it starts runs with the images' V8 heap settings, in front of its compiled file", () => {
    const commandLines = everyProcess.map((name) => ({
      name,
      argv: readFileSync(`/proc/${stack.pidOf(name)}/cmdline`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .slice(1),
    }));
    expect(commandLines).toEqual(
      everyProcess.map((name) => ({
        name,
        argv: [...processNodeFlags, expect.stringMatching(/\/dist\/main\.js$/)],
      })),
    );
  });

  test("every process it starts has the images' C library settings in its environment", () => {
    const settings = everyProcess.map((name) => {
      const environment = readFileSync(`/proc/${stack.pidOf(name)}/environ`, 'utf8').split('\0');
      return {
        name,
        settings: Object.keys(processMemoryEnvironment).map((variable) =>
          environment.find((entry) => entry.startsWith(`${variable}=`)),
        ),
      };
    });
    expect(settings).toEqual(
      everyProcess.map((name) => ({
        name,
        settings: Object.entries(processMemoryEnvironment).map(([variable, value]) => `${variable}=${value}`),
      })),
    );
  });

  test('stopping it (SIGTERM, handled as Ctrl-C is) stops every process it started, each cleanly (exit 0)', async () => {
    const pids = everyProcess.map((name) => stack.pidOf(name));
    const urls = [
      `${stack.gatewayUrl}/healthz`,
      stack.pspUrl,
      stack.solanaRpcUrl,
      ...metricsServices.map((service) => `${stack.metricsUrls[service]}/healthz`),
    ];
    expect(await Promise.all(urls.map(answers))).toEqual(urls.map(() => true));
    await stack.stop();
    expect(await Promise.all(urls.map(answers))).toEqual(urls.map(() => false));
    // Each said so as it went: the launcher was there to stop them (not killed with its group).
    expect(everyProcess.map((name, i) => ({ name, exit: stack.exitOf(pids[i]!) }))).toEqual(
      everyProcess.map((name) => ({ name, exit: '0' })),
    );
  }, 60_000);
});

describe('the launcher checks the ports it will listen on before starting anything', () => {
  /** Why a start with `env` failed (the launcher's last lines), or undefined when it started. */
  const failedStart = (env: Record<string, string>) =>
    startStack(env).then(
      async (stack) => {
        await stack.stop();
        return undefined;
      },
      (err: Error) => err.message,
    );

  test('a port another program holds is named with its variable, and nothing starts (status 78)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const failed = await failedStart({ PORT: String(port) });
      expect(failed).toContain('the launcher exited (78)');
      expect(failed).toContain(`port ${port} (PORT) is taken (EADDRINUSE)`);
      expect(failed).toContain('nothing was started');
      expect(failed).not.toMatch(/^\S+ \| /m);
    } finally {
      holder.close();
    }
  }, 60_000);

  test('one port given to two variables is refused, naming both', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    await new Promise((resolve) => holder.close(resolve));
    const failed = await failedStart({ PORT: String(port), DASHBOARD_PORT: String(port) });
    expect(failed).toContain(`DASHBOARD_PORT and PORT are both ${port}`);
    expect(failed).not.toMatch(/^\S+ \| /m);
  }, 60_000);
});

describe('the launcher refuses a bad environment before starting anything', () => {
  const launch = (env: Record<string, string>) =>
    spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'scripts/stack.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
  /** A launcher that started processes prints their prefixed lines (`payment | ...`). */
  const startedAnyProcess = (output: string) => / \| /.test(output);

  test('a single METRICS_PORT for every service is refused, naming the variable (status 78)', () => {
    const result = launch({ METRICS_PORT: '9100', PORT: 'eighty' });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('METRICS_PORT');
    expect(result.stderr).toContain('"PORT" must be a number');
  });

  test('an ADMIN_TOKEN the gateway would refuse (too short) is refused up front, naming it (status 78)', () => {
    const result = launch({ ADMIN_TOKEN: 'short' });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('(bad variables: ADMIN_TOKEN)');
    expect(startedAnyProcess(result.stdout + result.stderr)).toBe(false);
  });

  test('in production, a missing or short ADMIN_TOKEN is refused up front, as the gateway refuses it', () => {
    const environments: Array<Record<string, string>> = [
      { APP_ENV: 'production' },
      { APP_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(31) },
    ];
    for (const env of environments) {
      const result = launch(env);
      expect(result.status).toBe(78);
      expect(result.stderr).toContain('(bad variables: ADMIN_TOKEN)');
    }
  });

  test('the ports it shares with the gateway and the stand-ins are checked by their own rules (status 78)', () => {
    const result = launch({ PORT: '70000', PSP_SIMULATOR_PORT: '-1', SOLANA_LOCALNET_PORT: 'x' });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('(bad variables: PORT, PSP_SIMULATOR_PORT, SOLANA_LOCALNET_PORT)');
    expect(startedAnyProcess(result.stdout + result.stderr)).toBe(false);
  });
});
