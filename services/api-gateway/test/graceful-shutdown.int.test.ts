import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFeeRule } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import {
  connectTestClient,
  deleteBrokerNames,
  isolatedEnvironment,
  SERVICE_STOP_STAGE_LINES,
  waitFor,
  type IsolatedEnvironment,
} from '@gateway/testkit';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process';
import { ADMIN_TOKEN, deleteRedisKeys, FakeServices } from './support/harness';

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

/** A raw connection to the gateway that sends `text` (perhaps half a request) and no more. */
async function rawConnection(port: number, text = ''): Promise<Socket> {
  const socket = connect(port, '127.0.0.1').on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(text);
  return socket;
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
  let gateway: GatewayProcess | undefined;

  beforeEach(async () => {
    env = await isolatedEnvironment('gw-shutdown');
    client = await connectTestClient(env.config, 'gw-shutdown-fakes');
  });

  afterEach(async () => {
    gateway?.child.kill('SIGKILL');
    await client.close();
    await deleteBrokerNames(env.config.AMQP_PREFIX);
    await deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX);
    await env.database.drop();
  });

  test('a request waiting for its RPC reply at SIGTERM gets its answer with Connection: close, new connections are refused, and the process exits 0 at once after it, an idle connection and a half-sent request holding nothing', async () => {
    const fakes = await FakeServices.start(client, ['payment']);
    let answerRule = () => undefined as void;
    const ruleAnswered = new Promise<void>((resolve) => {
      answerRule = resolve;
    });
    fakes.on(setFeeRule, async (rule) => {
      await ruleAnswered;
      return rule;
    });
    gateway = await startGatewayProcess(env, { RPC_TIMEOUT_MS: '20000', SHUTDOWN_TIMEOUT_MS: '25000' });
    const { port, url, lines, exited } = gateway;
    const business = await send(url, 'POST', '/admin/v1/businesses', { name: 'Loja do SIGTERM' });
    expect(business.status).toBe(201);
    const businessId = (JSON.parse(business.body) as { business_id: string }).business_id;

    const inFlight = send(url, 'PUT', `/admin/v1/businesses/${businessId}/fee-rules/pix`, {
      percent_bps: 99,
      fixed_centavos: 0,
    });
    await waitFor(() => fakes.receivedOf(setFeeRule).length === 1, { what: 'the RPC to reach the fake' });
    // A client that connected and sent nothing, and one that sent half its headers.
    const idle = [
      await rawConnection(port),
      await rawConnection(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nAcc'),
    ];
    gateway.child.kill('SIGTERM');
    await waitFor(async () => (await connectionError(url)) === 'ECONNREFUSED', {
      what: 'new connections to be refused',
    });
    expect(lines.filter((line) => line.msg === 'stop: work in flight finished')).toEqual([]);

    answerRule();
    const answer = await inFlight;
    const answeredAt = Date.now();
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
    // The half-sent request's grace (1 s) and the stages after it, on a busy machine.
    expect(Date.now() - answeredAt).toBeLessThan(4000);
    idle.forEach((socket) => socket.destroy());
    expect(lines.filter((line) => String(line.msg).startsWith('stop: ')).map((line) => line.msg)).toEqual(
      SERVICE_STOP_STAGE_LINES,
    );
  });
});
