import {
  freePort,
  startLoggingProcess,
  waitFor,
  type IsolatedEnvironment,
  type LoggingProcess,
} from '@gateway/testkit';
import { ADMIN_TOKEN } from './harness';

export interface GatewayProcess extends LoggingProcess {
  port: number;
  /** e.g. `http://127.0.0.1:40123`. */
  url: string;
}

/**
 * The gateway as the launcher and the image run it (its main.ts as the entry point, so tracing starts as its
 * environment says), on the test's database, broker prefix and Redis prefix and a free port; resolves once it answers.
 */
export async function startGatewayProcess(
  env: IsolatedEnvironment,
  settings: Record<string, string> = {},
): Promise<GatewayProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = startLoggingProcess('services/api-gateway/src/main.ts', {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...env.config,
    LOG_LEVEL: 'info',
    PORT: String(port),
    ADMIN_TOKEN,
    ...settings,
  });
  try {
    await waitFor(
      async () =>
        gateway.child.exitCode === null &&
        (await fetch(`${url}/healthz`).then(
          (response) => response.ok,
          () => false,
        )),
      { timeoutMs: 60_000, intervalMs: 250, what: 'the gateway to listen' },
    );
  } catch (err) {
    gateway.child.kill('SIGKILL');
    throw err;
  }
  return { ...gateway, port, url };
}
