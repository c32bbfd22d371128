import { brokerLeaderNodesDown } from '../src';
import { describeFaultRun } from './support/fault-run-suite';

/** How long each node stays down: longer than a quorum queue's leader election and the services' reconnect backoff. */
const NODE_DOWN_MS = 20_000;

/**
 * The stack on a three-node RabbitMQ cluster (AMQP_URLS naming every node; quorum queues with a member on each) under
 * steady load: the node leading the busiest queues is killed and started again, then another one the same way. The
 * services move to the nodes left and back, and every invariant of the fault suite holds.
 */
describe('a three-node RabbitMQ cluster losing the nodes that lead the busiest queues', () => {
  const { run } = describeFaultRun(
    {
      load: { clients: 3, pauseMs: 500, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 120_000,
      gapMs: 10_000,
      brokerNodes: 3,
    },
    () => brokerLeaderNodesDown(NODE_DOWN_MS, 2),
    { minimumPayments: 20, brokerRetries: false },
  );

  test('two different nodes were killed, and every queue of the stack is still replicated on the three', async () => {
    const broker = run().targets.broker;
    expect(new Set(broker.killed).size).toBe(2);
    const nodes = broker.nodes.map((node) => node.node).sort();
    const members = [...(await broker.queueMembers()).values()];
    expect(members.length).toBeGreaterThan(0);
    for (const queueMembers of members) expect([...queueMembers].sort()).toEqual(nodes);
  });
});
