import { jsonLogLines } from '@gateway/testkit';
import { eventsLostOnTheWayTo, firstStartAfterEvents, type FirstStart } from '../src';
import { describeFaultRun } from './support/fault-run-suite';

/** Events that must have waited for the dispatcher's first start: a few seconds of the load's. */
const WAITING_AT_LEAST = 15;
/** How long the broker drops every event on its way to the dispatcher: many state changes of the load. */
const LOSS_MS = 15_000;
/** What the dispatcher logs for each event its reading of an owner's event log brought instead of the broker. */
const RECOVERED_FROM_THE_LOG = 'event recorded from its owner log: the broker had not brought it';

/**
 * Issue 32's two corners where messages used to vanish, under steady load. Early publish: the webhook dispatcher as
 * before its first start (its events queue deleted, the whole topology declared again by the payment service's start,
 * as a producer deployed before a new consumer does): the load's events wait in its queue, and once it starts every
 * one reaches its webhooks. Lost messages: the broker drops every event on its way to the dispatcher for a while (its
 * bindings removed); the dispatcher's reading of the owners' event logs (every second here, events settled after 5 s)
 * brings each state change to every subscribed webhook anyway, exactly once. Every invariant of the fault suite holds.
 */
describe('events published before their consumer first started, and events the broker lost', () => {
  const starts: FirstStart[] = [];

  const suite = describeFaultRun(
    {
      load: { clients: 3, pauseMs: 500, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 120_000,
      gapMs: 10_000,
      stack: { env: { EVENT_LOG_RECONCILE_INTERVAL_MS: '1000', EVENT_LOG_SETTLE_SECONDS: '5' } },
    },
    () => [
      firstStartAfterEvents('webhook-dispatcher', WAITING_AT_LEAST, starts),
      eventsLostOnTheWayTo('webhook-dispatcher', LOSS_MS),
    ],
    { minimumPayments: 20, brokerRetries: false },
  );

  test('the events published before the dispatcher first started waited for it in the queue declared for it', () => {
    console.log(`events waiting for the dispatcher's first start: ${starts[0]?.waiting}`);
    expect(starts.map((s) => s.service)).toEqual(['webhook-dispatcher']);
    expect(starts[0]!.waiting).toBeGreaterThanOrEqual(WAITING_AT_LEAST);
  });

  test('the events the broker lost came from the event logs, each accepted exactly once by every webhook subscribed to it', () => {
    const { stack, receiver } = suite.run().targets;
    const recovered = new Set(
      jsonLogLines(stack)
        .filter((line) => line.msg === RECOVERED_FROM_THE_LOG)
        .map((line) => String(line.event_id)),
    );
    console.log(`events the broker lost, brought from the event logs: ${recovered.size}`);
    expect(recovered.size).toBeGreaterThan(0);
    const accepted = new Map<string, number>();
    for (const d of receiver.deliveries) {
      const id = (JSON.parse(d.body) as { id: string }).id;
      if (typeof d.answer === 'number' && d.answer < 300 && recovered.has(id))
        accepted.set(`${d.path} ${id}`, (accepted.get(`${d.path} ${id}`) ?? 0) + 1);
    }
    // Every one was delivered (the suite's "every state change has its delivery" says to every webhook subscribed);
    // none twice to the same webhook.
    const delivered = new Set([...accepted.keys()].map((key) => key.split(' ')[1]));
    expect([...recovered].filter((id) => !delivered.has(id))).toEqual([]);
    expect([...accepted].filter(([, times]) => times !== 1)).toEqual([]);
  });
});
