import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNames, type ReleasedMessages } from '@gateway/contracts';
import { checkOutRelease, RollingUpgrade, type CheckedOutRelease } from '../src';
import { describeFaultRun, onlyServiceUnavailable } from './support/fault-run-suite';

/**
 * The release a rollout starts from: the one the message-compatibility check records, unless ROLLING_UPGRADE_FROM
 * names another commit (to try a candidate release, or this commit itself as a control of the test's own machinery).
 */
const releasedCommit =
  process.env.ROLLING_UPGRADE_FROM ??
  (
    JSON.parse(
      readFileSync(join(__dirname, '../../contracts/released-messages.json'), 'utf8'),
    ) as ReleasedMessages
  ).released_at_commit;

/** The release before runs two payment replicas: its queues are shared by replicas of both releases for a while. */
const RELEASED_REPLICAS = 'payment=2';

/** The gateway first (it faces the clients), then the dashboard, then every service behind them. */
const UPGRADE_ORDER = ['api-gateway', 'dashboard', ...serviceNames.filter((name) => name !== 'api-gateway')];

/**
 * Never restart a replaced process (the release before's launcher would otherwise start it again): a delay past the
 * run, within setTimeout's range.
 */
const NEVER_MS = String(2 ** 31 - 1);

/**
 * A rolling upgrade under steady load: the last released commit's services (checked out from git, its own launcher
 * and migrations) run against the run's database, broker and Redis; then each replica is replaced in turn by one of
 * this release (started, ready, and only then the old one sent SIGTERM), the gateway first, until only this release
 * runs. Every invariant of the fault suite must hold: nothing lost, nothing doubled, nothing parked, nothing unsent,
 * and the clients saw no error but a 503 with Retry-After.
 */
describe(`a rolling upgrade from the released ${releasedCommit.slice(0, 7)} to this release under load`, () => {
  let release: CheckedOutRelease | undefined;
  const upgrade = new RollingUpgrade();

  const suite = describeFaultRun(
    {
      load: { clients: 3, pauseMs: 600, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 150_000,
      gapMs: 1_000,
    },
    (run) => upgrade.steps(run.targets.stack, UPGRADE_ORDER),
    { minimumPayments: 30, brokerRetries: false },
    {
      beforeStart: async (log) => {
        log(`checking out the released ${releasedCommit} and installing its dependencies`);
        release = await checkOutRelease(releasedCommit, log);
        return {
          stack: {
            root: release.root,
            balancedGateway: true,
            webhookEvents: release.webhookEventNames,
            env: {
              STACK_REPLICAS: RELEASED_REPLICAS,
              RESTART_EXITED_AFTER_MS: NEVER_MS,
              // Two releases' processes side by side on the shared PostgreSQL: smaller pools than production's.
              DATABASE_POOL_SIZE: '5',
            },
          },
        };
      },
      beforeStop: () => upgrade.stop(),
      afterStop: async () => release?.remove(),
    },
  );

  test("every replica of the release before was replaced by this release's, and stopped by itself with code 0", () => {
    const { stack } = suite.run().targets;
    console.log(
      `replaced:\n${upgrade.replaced.map((r) => `  ${r.name} exited (${r.exit}) ${r.tookMs} ms after its successor started`).join('\n')}`,
    );
    // Every process of the released stack: one of each service, and the second payment replica.
    const every = [...UPGRADE_ORDER, 'payment#2'];
    expect(upgrade.replaced.map((r) => r.name).sort()).toEqual(every.sort());
    expect(upgrade.replaced.filter((r) => r.exit !== '0')).toEqual([]);
    // The release before's launcher runs none of them anymore.
    expect(every.filter((name) => stack.exitOf(stack.pidOf(name)) === undefined)).toEqual([]);
  });

  test('the clients saw no error but 503 (with Retry-After): no other 5xx, no reset or refused connection', () => {
    expect(onlyServiceUnavailable(suite.run())).toEqual([]);
  });
});
