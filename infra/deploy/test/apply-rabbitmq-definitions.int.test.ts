import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusedVariables, testLogger } from '@gateway/testkit';
import { applyRabbitmqDefinitions } from '../src/apply-rabbitmq-definitions';
import { loadApplyDefinitionsConfig } from '../src/config';
import { DEFINITIONS_FILE } from '../src/deployed-definitions';

interface Received {
  method: string;
  url: string;
  authorization?: string;
  body: unknown;
}

/** A stand-in for the management API on a free port: answers each request with the next status of `statuses`. */
async function managementApi(
  statuses: number[],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({
        method: req.method!,
        url: req.url!,
        authorization: req.headers.authorization,
        body: body ? JSON.parse(body) : undefined,
      });
      const status = statuses.shift() ?? 204;
      res.writeHead(status).end(status >= 400 ? `{"error":"status ${status}"}` : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

function config(url: string, extra: Record<string, string> = {}) {
  return loadApplyDefinitionsConfig({
    RABBITMQ_MANAGEMENT_URL: url,
    RABBITMQ_MANAGEMENT_USERNAME: 'admin',
    RABBITMQ_MANAGEMENT_PASSWORD: 's3cret',
    RABBITMQ_APP_USERS: 'gateway, reporting',
    ...extra,
  });
}

describe('applying the RabbitMQ definitions through the management API', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  test('posts the definitions file with the credentials, then lets each app user into each of its vhosts', async () => {
    const api = await managementApi([]);
    servers.push(api.server);
    await applyRabbitmqDefinitions(config(`${api.url}/`), testLogger());
    const authorization = `Basic ${Buffer.from('admin:s3cret').toString('base64')}`;
    const rights = { configure: '.*', write: '.*', read: '.*' };
    expect(api.received).toEqual([
      {
        method: 'POST',
        url: '/api/definitions',
        authorization,
        body: JSON.parse(readFileSync(DEFINITIONS_FILE, 'utf8')),
      },
      { method: 'PUT', url: '/api/permissions/gateway/gateway', authorization, body: rights },
      { method: 'PUT', url: '/api/permissions/gateway/reporting', authorization, body: rights },
    ]);
  });

  test('lets the user of AMQP_URL (the services’ own Secret) into the vhost, once with RABBITMQ_APP_USERS', async () => {
    const api = await managementApi([]);
    servers.push(api.server);
    await applyRabbitmqDefinitions(
      config(api.url, {
        AMQP_URL: 'amqp://gateway:p%40ss@rabbitmq:5672/gateway',
        RABBITMQ_APP_USERS: 'gateway',
      }),
      testLogger(),
    );
    expect(api.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/definitions',
      'PUT /api/permissions/gateway/gateway',
    ]);
  });

  test('refuses, before any request, an AMQP_URL naming a vhost the file does not declare', async () => {
    const api = await managementApi([]);
    servers.push(api.server);
    await expect(
      applyRabbitmqDefinitions(
        config(api.url, { AMQP_URL: 'amqp://gateway:pass@rabbitmq:5672/' }),
        testLogger(),
      ),
    ).rejects.toThrow('AMQP_URL names the vhost "/"');
    expect(api.received).toEqual([]);
  });

  test('waits for a broker that is still starting (5xx, connection refused), then applies', async () => {
    const api = await managementApi([503, 500]);
    servers.push(api.server);
    await applyRabbitmqDefinitions(config(api.url, { RABBITMQ_APP_USERS: '' }), testLogger());
    expect(api.received.map((r) => r.url)).toEqual([
      '/api/definitions',
      '/api/definitions',
      '/api/definitions',
    ]);

    const closed = await managementApi([]);
    await new Promise((resolve) => closed.server.close(resolve));
    await expect(
      applyRabbitmqDefinitions(config(closed.url, { RABBITMQ_WAIT_SECONDS: '0' }), testLogger()),
    ).rejects.toThrow(/no success within 0 s/);
  }, 20_000);

  test('fails at once on an answer waiting cannot change (bad credentials, refused definitions)', async () => {
    for (const status of [401, 400]) {
      const api = await managementApi([status]);
      servers.push(api.server);
      await expect(applyRabbitmqDefinitions(config(api.url), testLogger())).rejects.toThrow(
        `POST /api/definitions: ${status}`,
      );
      expect(api.received).toHaveLength(1);
    }
  });

  test('its config names every missing setting, and the management password is never defaulted', () => {
    expect(refusedVariables(() => loadApplyDefinitionsConfig({}))).toEqual([
      'RABBITMQ_MANAGEMENT_PASSWORD',
      'RABBITMQ_MANAGEMENT_URL',
      'RABBITMQ_MANAGEMENT_USERNAME',
    ]);
    expect(config('http://rabbitmq:15672/')).toMatchObject({
      RABBITMQ_MANAGEMENT_URL: 'http://rabbitmq:15672',
      RABBITMQ_DEFINITIONS_FILE: DEFINITIONS_FILE,
      RABBITMQ_APP_USERS: ['gateway', 'reporting'],
      RABBITMQ_WAIT_SECONDS: 120,
    });
  });
});
