import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { madeUpSecrets, madeUpSettings, repoRoot } from './support/deployment';

/** `gateway config check` as an operator runs it, in `env` alone (with PATH): its exit status and what it printed. */
function configCheck(env: Record<string, string>) {
  return spawnSync(process.execPath, [join(repoRoot, 'packages/cli/bin/gateway.cjs'), 'config', 'check'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/**
 * The launcher's own check (what `npm start` runs, its output the terminal's) on a terminal: a pseudo-terminal made
 * by util-linux `script`, as a person runs it; the output is stdout and stderr together.
 */
function configCheckOnTerminal(env: Record<string, string>) {
  const command = `${join(repoRoot, 'node_modules/.bin/tsx')} ${join(repoRoot, 'scripts/stack.ts')} --check-config`;
  return spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** What each process refuses, as the report names it (`<process>: ...` then `(bad variables: ...)`). */
function refusedByProcess(report: string): Record<string, string[]> {
  return Object.fromEntries(
    [...report.matchAll(/^([\w-]+): invalid configuration: .*\n\(bad variables: (.*)\)$/gm)].map((match) => [
      match[1]!,
      match[2]!.split(', ').sort(),
    ]),
  );
}

describe('gateway config check', () => {
  test('in production with no settings, it names every missing variable of every process in one run and exits 78', () => {
    const result = configCheck({ APP_ENV: 'production' });

    expect(result.status).toBe(78);
    expect(refusedByProcess(result.stderr)).toEqual({
      launcher: ['ADMIN_TOKEN'],
      'api-gateway': [
        'ADMIN_TOKEN',
        'AMQP_URL',
        'DATABASE_URL',
        'IDEMPOTENCY_RESPONSE_KEY',
        'PUBLIC_BASE_URL',
        'REDIS_URL',
      ],
      payment: ['AMQP_URL', 'DATABASE_URL'],
      'pix-adapter': [
        'AMQP_URL',
        'CALLBACK_PUBLIC_URL',
        'CALLBACK_TOKEN',
        'DATABASE_URL',
        'MERCHANT_CITY',
        'PIX_KEY',
        'PSP_ACCOUNT_SEALING_KEY',
        'PSP_BASE_URL',
        'PSP_CLIENT_ID',
        'PSP_CLIENT_SECRET',
      ],
      'solana-watcher': [
        'AMQP_URL',
        'DATABASE_URL',
        'RECEIVING_WALLET',
        'REFUND_SIGNER_SECRET_KEY',
        'SOLANA_RPC_URL',
      ],
      checkout: ['AMQP_URL', 'DATABASE_URL'],
      customer: ['AMQP_URL', 'DATABASE_URL'],
      'webhook-dispatcher': ['AMQP_URL', 'DATABASE_URL', 'WEBHOOK_SECRET_KEY'],
      ledger: ['AMQP_URL', 'DATABASE_URL'],
      // No broker; its gateway is the one the launcher runs.
      dashboard: [
        'ADMIN_TOKEN',
        'DASHBOARD_PUBLIC_URL',
        'DASHBOARD_SEAL_KEY',
        'DATABASE_URL',
        'MAIL_FROM',
        'REDIS_URL',
        'SMTP_URL',
      ],
    });
    // The whole list once, to set in one go.
    const every = Object.values(refusedByProcess(result.stderr)).flat();
    expect(result.stderr.trim().split('\n').at(-1)!.split(' ')).toEqual([...new Set(every)].sort());
  });

  test('a bad value is named with the process that refuses it', () => {
    const result = configCheck({
      ...madeUpSecrets(),
      ...madeUpSettings(),
      APP_ENV: 'production',
      PIX_KEY: 'x'.repeat(78),
    });

    expect(result.status).toBe(78);
    expect(refusedByProcess(result.stderr)).toEqual({ 'pix-adapter': ['PIX_KEY'] });
  });

  test('with a full production environment it passes (exit 0), starting nothing', () => {
    const result = configCheck({ ...madeUpSecrets(), ...madeUpSettings(), APP_ENV: 'production' });

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('configuration valid (APP_ENV=production)');
  });

  test('the sandbox needs no setting at all', () => {
    const result = configCheck({ APP_ENV: 'sandbox' });

    expect(result.status).toBe(0);
  });

  describe('how npm start would show log lines (LOG_FORMAT)', () => {
    const production = () => ({ ...madeUpSecrets(), ...madeUpSettings(), APP_ENV: 'production' });

    test('pretty only for a sandbox start on a terminal', () => {
      const result = configCheckOnTerminal({ APP_ENV: 'sandbox' });
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('log lines shown as pretty (LOG_FORMAT)');
    });

    test('json when the output is read by a program (piped), even in the sandbox', () => {
      const result = configCheck({ APP_ENV: 'sandbox' });
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('log lines shown as json (LOG_FORMAT)');
    });

    test('json in production, even on a terminal', () => {
      const result = configCheckOnTerminal(production());
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('configuration valid (APP_ENV=production)');
      expect(result.stdout).toContain('log lines shown as json (LOG_FORMAT)');
    });

    test('a value set explicitly always wins', () => {
      expect(configCheck({ APP_ENV: 'sandbox', LOG_FORMAT: 'pretty' }).stdout).toContain(
        'log lines shown as pretty (LOG_FORMAT)',
      );
      expect(configCheckOnTerminal({ APP_ENV: 'sandbox', LOG_FORMAT: 'json' }).stdout).toContain(
        'log lines shown as json (LOG_FORMAT)',
      );
      expect(configCheckOnTerminal({ ...production(), LOG_FORMAT: 'pretty' }).stdout).toContain(
        'log lines shown as pretty (LOG_FORMAT)',
      );
    });

    test('anything else is refused, naming it (status 78)', () => {
      const result = configCheck({ APP_ENV: 'sandbox', LOG_FORMAT: 'colourful' });
      expect(result.status).toBe(78);
      expect(result.stderr).toContain('(bad variables: LOG_FORMAT)');
    });
  });
});
