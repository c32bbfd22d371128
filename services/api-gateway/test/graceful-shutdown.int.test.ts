import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { setFeeRule } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import {
  connectTestClient,
  deleteBrokerNames,
  freePort,
  isolatedEnvironment,
  waitFor,
  type IsolatedEnvironment,
} from '@gateway/testkit';
import { ADMIN_TOKEN, deleteRedisKeys, FakeServices } from './support/harness';

const root = join(__dirname, '../../..');

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on its own kept-alive connection, as a pooling client sends it. */
function send(url: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      `${url}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          connection: 'keep-alive',
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The error code a connection attempt ends with (`ECONNREFUSED`), or undefined when it is answered. */
const connectionError = (url: string): Promise<string | undefined> =>
  send(url, 'GET', '/healthz').then(
    () => undefined,
    (err: NodeJS.ErrnoException) => err.code,
  );

describe('api gateway stopping on SIGTERM (the process the launcher and the image run)', () => {
  let env: IsolatedEnvironment;
  let client: Broker;
  let gateway: ChildProcess | undefined;

  beforeEach(async () => {
    env = await isolatedEnvironment('gw-shutdown');
    client = await connectTestClient(env.config, 'gw-shutdown-fakes');
  });

  afterEach(async () => {
    gateway?.kill('SIGKILL');
    await client.close();
    await deleteBrokerNames(env.config.AMQP_PREFIX);
    await deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX);
    await env.database.drop();
  });

  test('a request waiting for its RPC reply at SIGTERM gets its answer with Connection: close, new connections are refused, and the process exits 0', async () => {
    const fakes = await FakeServices.start(client, ['payment']);
    let answerRule = () => undefined as void;
    const ruleAnswered = new Promise<void>((resolve) => {
      answerRule = resolve;
    });
    fakes.on(setFeeRule, async (rule) => {
      await ruleAnswered;
      return rule;
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const lines: Array<Record<string, unknown>> = [];
    gateway = spawn(process.execPath, ['--import', 'tsx', 'services/api-gateway/src/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...env.config,
        LOG_LEVEL: 'info',
        PORT: String(port),
        ADMIN_TOKEN,
        RPC_TIMEOUT_MS: '20000',
        SHUTDOWN_TIMEOUT_MS: '25000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let partial = '';
    gateway.stdout!.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const complete = text.split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line));
    });
    const child = gateway;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(async () => (await connectionError(url)) === undefined, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the gateway to listen',
    });
    const business = await send(url, 'POST', '/admin/v1/businesses', { name: 'Loja do SIGTERM' });
    expect(business.status).toBe(201);
    const businessId = (JSON.parse(business.body) as { business_id: string }).business_id;

    const inFlight = send(url, 'PUT', `/admin/v1/businesses/${businessId}/fee-rules/pix`, {
      percent_bps: 99,
      fixed_centavos: 0,
    });
    await waitFor(() => fakes.receivedOf(setFeeRule).length === 1, { what: 'the RPC to reach the fake' });
    gateway.kill('SIGTERM');
    await waitFor(async () => (await connectionError(url)) === 'ECONNREFUSED', {
      what: 'new connections to be refused',
    });
    expect(lines.filter((line) => line.msg === 'stop: work in flight finished')).toEqual([]);

    answerRule();
    const answer = await inFlight;
    expect({ status: answer.status, connection: answer.headers.connection }).toEqual({
      status: 200,
      connection: 'close',
    });
    expect(JSON.parse(answer.body)).toMatchObject({
      business_id: businessId,
      method: 'pix',
      percent_bps: 99,
    });
    expect(await exited).toBe(0);
    expect(lines.filter((line) => String(line.msg).startsWith('stop: ')).map((line) => line.msg)).toEqual([
      'stop: stopped taking new work',
      'stop: work in flight finished',
      'stop: outbox flushed',
      'stop: resources released',
      'stop: broker closed',
      'stop: database closed',
      'stop: telemetry flushed',
    ]);
  });
});
