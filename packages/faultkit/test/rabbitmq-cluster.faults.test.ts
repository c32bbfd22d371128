import { brokerLeaderNodesDown, brokerMajorityDown } from '../src';
import { describeFaultRun, onlyServiceUnavailable } from './support/fault-run-suite';

/** How long each node stays down: longer than a quorum queue's leader election and the services' reconnect backoff. */
const NODE_DOWN_MS = 20_000;
/** How long two nodes stay down together: past the gateway's RPC timeout, so clients meet the outage. */
const MAJORITY_DOWN_MS = 15_000;

/**
 * The stack on a three-node RabbitMQ cluster (AMQP_URLS naming every node; quorum queues with a member on each) under
 * steady load: the node leading the busiest queues is killed and started again, then another one the same way; then
 * two of the three are killed at once (every quorum queue loses its majority) and started again. The services move to
 * the nodes left and back, clients see no error but 503 with Retry-After, and every invariant of the fault suite holds.
 */
describe('a three-node RabbitMQ cluster losing the nodes that lead the busiest queues, one and then two at a time', () => {
  const { run } = describeFaultRun(
    {
      load: { clients: 3, pauseMs: 500, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 120_000,
      gapMs: 10_000,
      brokerNodes: 3,
    },
    () => [...brokerLeaderNodesDown(NODE_DOWN_MS, 2), brokerMajorityDown(MAJORITY_DOWN_MS)],
    { minimumPayments: 20, brokerRetries: false },
  );

  test('two different nodes were killed one at a time, then two at once, and every queue is still replicated on the three', async () => {
    const broker = run().targets.broker;
    expect(broker.killed).toHaveLength(4);
    expect(new Set(broker.killed.slice(0, 2)).size).toBe(2);
    expect(new Set(broker.killed.slice(2)).size).toBe(2);
    const nodes = broker.nodes.map((node) => node.node).sort();
    const members = [...(await broker.queueMembers()).values()];
    expect(members.length).toBeGreaterThan(0);
    for (const queueMembers of members) expect([...queueMembers].sort()).toEqual(nodes);
  });

  test('the clients saw no error but 503 (with Retry-After): no other 5xx, no reset or refused connection', () => {
    expect(onlyServiceUnavailable(run())).toEqual([]);
  });
});
