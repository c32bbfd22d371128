import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import { infrastructureUrls } from '@gateway/testkit-core';
import { backboneForEachTest } from './backbone-fixture';

const run = promisify(execFile);

/** How many channels the broker counts on the connection named `name`, as `rabbitmqctl` lists them. */
async function channelsOf(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', [
    'list_connections',
    'client_properties',
    'channels',
    '--quiet',
    '--no-table-headers',
  ]);
  // The client's properties hold its connection name (unique to the test), the last column the channels.
  return stdout
    .split('\n')
    .filter((line) => line.includes(`"${name}"`))
    .reduce((sum, line) => sum + Number(line.split('\t').at(-1)), 0);
}

describe('the readiness check and the gauges, every few seconds, on channels kept open', () => {
  const backbone = backboneForEachTest();
  const asAService = { wholeTopology: true, exactSubscriptions: true };

  test('many checks open no channel after the first of each, and answer what the broker holds', async () => {
    const name = `inspect-${backbone.prefix}`;
    const broker = await backbone.connectBroker(name, asAService);
    await broker.commandConsumers('payment');
    await broker.measureRetryBacklog();
    await broker.measureParked('payment');
    const afterFirst = await channelsOf(name);
    // amqplib's connection class (what `amqp.connect` resolves to), to count the channels the checks open.
    const probe = await amqp.connect(infrastructureUrls().amqpUrl, { noDelay: true });
    const channelModel = Object.getPrototypeOf(probe) as { createChannel(): Promise<unknown> };
    await probe.close();
    const opened = jest.spyOn(channelModel, 'createChannel');
    for (let i = 0; i < 20; i++) {
      expect(await broker.commandConsumers('payment')).toBe(0);
      await broker.measureRetryBacklog();
      await broker.measureParked('payment');
    }
    expect(opened).not.toHaveBeenCalled();
    opened.mockRestore();
    expect(await channelsOf(name)).toBe(afterFirst);
    await consumeCommandsOf(`${backbone.prefix}payment.commands`, async () => {
      expect(await broker.commandConsumers('payment')).toBe(1);
    });
    expect(await channelsOf(name)).toBe(afterFirst);
  });

  test("a queue gone closes only its own service's readiness channel: checks at the same moment of the others answer, and its next ones open another", async () => {
    const broker = await backbone.connectBroker(`inspect-gone-${backbone.prefix}`, asAService);
    expect(await broker.commandConsumers('customer')).toBe(0);
    expect(await broker.commandConsumers('payment')).toBe(0);
    const model = await amqp.connect(infrastructureUrls().amqpUrl, { noDelay: true });
    try {
      await (await model.createChannel()).deleteQueue(`${backbone.prefix}customer.commands`);
    } finally {
      await model.close();
    }
    await consumeCommandsOf(`${backbone.prefix}payment.commands`, async () => {
      // As the gateway's /readyz asks: every service at once. The missing queue's 404 closes its channel only.
      for (let round = 0; round < 5; round++) {
        const [customer, payment] = await Promise.all([
          broker.commandConsumers('customer'),
          broker.commandConsumers('payment'),
        ]);
        expect({ round, customer, payment }).toEqual({ round, customer: 0, payment: 1 });
      }
    });
    // The queue back (a service declares it again as it reconnects): its check answers on a new channel.
    const again = await backbone.connectBroker('customer', asAService);
    await consumeCommandsOf(`${backbone.prefix}customer.commands`, async () => {
      expect(await broker.commandConsumers('customer')).toBe(1);
    });
    await again.close();
  });
});

/** Runs `during` while one consumer (of another connection) consumes `queue`. */
async function consumeCommandsOf(queue: string, during: () => Promise<void>): Promise<void> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl, { noDelay: true });
  try {
    await (await model.createChannel()).consume(queue, () => undefined);
    await during();
  } finally {
    await model.close();
  }
}
