import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_RECEIVING_WALLET } from '@gateway/solana-watcher/src/config';
import { DEFINITIONS_FILE, DEPLOYED_TOPOLOGY } from '../src/write-rabbitmq-definitions';
import {
  composeEnvironment,
  composeFile,
  composeValidator,
  definitionsStep,
  interpolate,
  productionRequired,
  repoRoot,
  runtimeVariables,
  stackServices,
  standIns,
  type ComposeService,
} from './support/deployment';

const compose = composeFile();
const processes = [...stackServices, ...standIns];
const infrastructure = ['postgres', 'redis', 'rabbitmq'];

function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** The port a health check command connects to (`fetch('http://127.0.0.1:PORT/...')`, `connect(PORT, ...)`). */
function probedPort(test: string[] | string): { port: number; path?: string } {
  const command = Array.isArray(test) ? test.join(' ') : test;
  const http = /http:\/\/127\.0\.0\.1:(\d+)(\/[a-z]+)/.exec(command);
  if (http) return { port: Number(http[1]), path: http[2] };
  const tcp = /connect\((\d+),\s*'127\.0\.0\.1'\)/.exec(command);
  if (tcp) return { port: Number(tcp[1]) };
  throw new Error(`no probed port in ${command}`);
}

describe('docker-compose.yml', () => {
  test('is valid by the vendored compose specification, as written and once interpolated', () => {
    const validate = composeValidator();
    const interpolated = JSON.parse(interpolate(JSON.stringify(compose))) as unknown;
    for (const document of [compose, interpolated]) {
      const valid = validate(document);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  test('runs every process of the stack from the one image, each with its own entry point', () => {
    for (const { name, entry } of [...processes, definitionsStep]) {
      const { build } = service(name);
      expect({ name, dockerfile: build?.dockerfile, entry: build?.args?.ENTRY }).toEqual({
        name,
        dockerfile: 'infra/docker/Dockerfile',
        entry,
      });
      expect(existsSync(join(repoRoot, entry))).toBe(true);
    }
    expect(existsSync(join(repoRoot, 'infra/docker/Dockerfile'))).toBe(true);
  });

  test('the sandbox stand-ins, and only they, are in the `sandbox` profile; what needs them starts without them', () => {
    for (const [name, { profiles }] of Object.entries(compose.services))
      expect({ name, profiles }).toEqual({
        name,
        profiles: standIns.some((standIn) => standIn.name === name) ? ['sandbox'] : undefined,
      });
    for (const [name, { depends_on }] of Object.entries(compose.services))
      for (const [dependency, { required }] of Object.entries(depends_on ?? {})) {
        expect(Object.keys(compose.services)).toContain(dependency);
        if (standIns.some((standIn) => standIn.name === dependency))
          expect({ name, dependency, required }).toEqual({ name, dependency, required: false });
      }
  });

  test('every health check probes, at a health path, the port its process listens on by its own config', () => {
    for (const process of processes) {
      const env = composeEnvironment(service(process.name));
      const test = service(process.name).healthcheck?.test;
      expect({ name: process.name, test: Boolean(test) }).toEqual({ name: process.name, test: true });
      const { port, path } = probedPort(test!);
      expect({ name: process.name, port }).toEqual({ name: process.name, port: process.healthPort(env) });
      if (path) expect(['/healthz', '/readyz']).toContain(path);
    }
  });

  test('the one image has node and every file its containers run (the definitions file included)', () => {
    const dockerfile = readFileSync(join(repoRoot, 'infra/docker/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    for (const folder of ['packages', 'services', 'infra'])
      expect(dockerfile).toMatch(new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    expect(existsSync(DEFINITIONS_FILE)).toBe(true);
    expect(DEFINITIONS_FILE.startsWith(join(repoRoot, 'infra/'))).toBe(true);
  });

  test('health checks run what their image has: node in ours (it has no curl), the tools of the official ones', () => {
    for (const process of processes) {
      const test = service(process.name).healthcheck!.test as string[];
      expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    }
    for (const name of infrastructure) expect(service(name).healthcheck?.test).toBeDefined();
  });

  test('long-running services restart unless stopped; the one-shot definitions step does not', () => {
    for (const [name, { restart }] of Object.entries(compose.services))
      expect({ name, restart }).toEqual({
        name,
        restart: name === definitionsStep.name ? 'no' : 'unless-stopped',
      });
  });

  test('every service starts once the broker has its definitions, and the gateway once every service is healthy', () => {
    for (const { name } of stackServices)
      expect(service(name).depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        rabbitmq: { condition: 'service_healthy' },
        [definitionsStep.name]: { condition: 'service_completed_successfully' },
      });
    for (const { name } of stackServices.filter((s) => s.name !== 'api-gateway'))
      expect(service('api-gateway').depends_on?.[name]).toEqual({ condition: 'service_healthy' });
  });

  test('every variable given to a process is one its config reads', () => {
    for (const process of [...processes, definitionsStep]) {
      const unread = Object.keys(service(process.name).environment ?? {}).filter(
        (name) => !process.variables.includes(name) && !runtimeVariables.includes(name),
      );
      expect({ name: process.name, unread }).toEqual({ name: process.name, unread: [] });
    }
  });

  test('the sandbox (nothing set but the profile) loads every process config, in sandbox', () => {
    for (const process of [...processes, definitionsStep]) {
      const env = composeEnvironment(service(process.name));
      expect(() => process.load(env)).not.toThrow();
    }
    for (const { name } of stackServices) expect(composeEnvironment(service(name)).APP_ENV).toBe('sandbox');
  });

  test('in production every variable a service requires is set here or passed through from the environment', () => {
    for (const process of stackServices) {
      const given = Object.keys(service(process.name).environment ?? {});
      const missing = productionRequired(process).filter((name) => !given.includes(name));
      expect({ name: process.name, missing }).toEqual({ name: process.name, missing: [] });
    }
  });

  test('the local chain funds the wallet the watcher uses in the sandbox', () => {
    expect(composeEnvironment(service('solana-localnet')).SOLANA_LOCALNET_RECEIVING_WALLET).toBe(
      SANDBOX_RECEIVING_WALLET,
    );
  });

  test('the services use the vhost and names the RabbitMQ definitions declare, and the step grants their user', () => {
    for (const { name } of stackServices) {
      const env = composeEnvironment(service(name));
      expect(new URL(env.AMQP_URL!).pathname).toBe(`/${DEPLOYED_TOPOLOGY.vhost}`);
      expect(env.AMQP_PREFIX ?? '').toBe(DEPLOYED_TOPOLOGY.prefix);
    }
    const amqpUser = new URL(composeEnvironment(service('payment')).AMQP_URL!).username;
    expect(composeEnvironment(service(definitionsStep.name)).RABBITMQ_APP_USERS).toBe(amqpUser);
  });
});
