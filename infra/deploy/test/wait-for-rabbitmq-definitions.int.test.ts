import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import {
  deleteBrokerNames,
  infrastructureUrls,
  recordingLogger,
  refusedVariables,
  testLogger,
  uniquePrefix,
  waitFor,
} from '@gateway/testkit';
import { loadWaitForDefinitionsConfig } from '../src/config';
import { rabbitmqDefinitions, type RabbitmqDefinitions } from '../src/rabbitmq-definitions';
import { waitForRabbitmqDefinitions } from '../src/wait-for-rabbitmq-definitions';
import { declareDefinitions } from './support/rabbitmq-declare';

/**
 * The init container of every Deployment, on the real broker: it lets the service start only once the definitions'
 * exchanges and queues are there for its own AMQP_URL. Under a test prefix in the broker's default vhost (the vhost
 * itself is the deploy step's to create).
 */
describe('waiting for the RabbitMQ definitions (the services’ init container)', () => {
  const prefix = uniquePrefix('wait');
  const definitions = rabbitmqDefinitions({ vhost: '/', prefix });
  const folder = mkdtempSync(join(tmpdir(), 'wait-definitions-'));
  const file = join(folder, 'definitions.json');
  writeFileSync(file, JSON.stringify(definitions));

  function config(extra: Record<string, string> = {}) {
    return loadWaitForDefinitionsConfig({
      AMQP_URL: infrastructureUrls().amqpUrl,
      RABBITMQ_DEFINITIONS_FILE: file,
      ...extra,
    });
  }

  async function declare(defs: RabbitmqDefinitions): Promise<void> {
    const model = await amqp.connect(infrastructureUrls().amqpUrl);
    try {
      await declareDefinitions(model, defs);
    } finally {
      await model.close();
    }
  }

  afterAll(async () => {
    await deleteBrokerNames(prefix);
    rmSync(folder, { recursive: true, force: true });
  });

  test('its config requires the service’s AMQP_URL, and an empty one (an unfilled placeholder) is refused', () => {
    expect(refusedVariables(() => loadWaitForDefinitionsConfig({}))).toEqual(['AMQP_URL']);
    expect(refusedVariables(() => loadWaitForDefinitionsConfig({ AMQP_URL: '' }))).toEqual(['AMQP_URL']);
    expect(config()).toMatchObject({ RABBITMQ_WAIT_SECONDS: 600 });
  });

  test('fails when the definitions are not on the broker within its time, naming what is missing', async () => {
    await expect(
      waitForRabbitmqDefinitions(config({ RABBITMQ_WAIT_SECONDS: '0' }), testLogger()),
    ).rejects.toThrow(/not in place within 0 s \(.*NOT_FOUND/);
  });

  test('holds the service until the definitions are applied, then lets it start', async () => {
    let done = false;
    const { logger, lines } = recordingLogger();
    const waiting = waitForRabbitmqDefinitions(config({ RABBITMQ_WAIT_SECONDS: '60' }), logger).then(
      () => (done = true),
    );
    // It has looked on the broker, found the definitions missing, and holds.
    await waitFor(() => lines.some((line) => line.msg === 'RabbitMQ definitions not in place yet, waiting'), {
      what: 'the waiter to find the definitions missing',
    });
    expect(done).toBe(false);
    await declare(definitions);
    await waiting;
    expect(done).toBe(true);
  }, 30_000);

  test('a vhost the broker does not have (the Job has not created it) is waited for too', async () => {
    const vhost = `absent-${prefix.slice(0, -1)}`;
    const elsewhere = join(folder, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify(rabbitmqDefinitions({ vhost, prefix })));
    const url = new URL(infrastructureUrls().amqpUrl);
    url.pathname = `/${vhost}`;
    await expect(
      waitForRabbitmqDefinitions(
        config({
          AMQP_URL: url.toString(),
          RABBITMQ_DEFINITIONS_FILE: elsewhere,
          RABBITMQ_WAIT_SECONDS: '0',
        }),
        testLogger(),
      ),
    ).rejects.toThrow(/not in place within 0 s/);
  });

  test('an AMQP_URL naming a vhost the file does not declare fails at once: waiting cannot change it', async () => {
    const url = new URL(infrastructureUrls().amqpUrl);
    url.pathname = '/another';
    await expect(
      waitForRabbitmqDefinitions(config({ AMQP_URL: url.toString() }), testLogger()),
    ).rejects.toThrow('AMQP_URL names the vhost "another"');
  });
});
