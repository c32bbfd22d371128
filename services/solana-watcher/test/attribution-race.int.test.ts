import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { cryptoRequestSettled } from '@gateway/contracts';
import { createLogger } from '@gateway/observability';
import { startedForTheseTests } from '@gateway/testkit';
import { SolanaRpc } from '../src/clients/solana-rpc';
import { recordTransfers } from '../src/application/record-transfers';
import { startSolanaWatcher } from '../src/main';
import { WatcherHarness } from './support/watcher';

const TRIES = 25;

describe('the same transaction seen by two watcher replicas at once', () => {
  const harness = WatcherHarness.forTheseTests();
  // A second watcher process on the same database, broker and chain, as a deployment with two replicas runs.
  const replica = startedForTheseTests(async () => {
    const runtime = await startSolanaWatcher(harness.config);
    // Closed after the harness (jest runs afterAll hooks in the order they were declared), which deleted the broker
    // names while this replica still ran and could declare them again: deleted again once nothing is connected.
    return Object.assign(runtime, {
      close: async () => {
        await runtime.stop();
        await runtime.broker.deleteDeclaredTopology();
      },
    });
  });

  test(`credits its payment exactly once, ${TRIES} times over`, async () => {
    const connection = new SolanaRpc(harness.localnet.url);
    const criteria = {
      receivingWallet: harness.localnet.receivingWallet.toBase58(),
      acceptedMints: new Map([[harness.localnet.mints.USDC, TOKEN_PROGRAM_ID.toBase58()]]),
    };
    const logger = createLogger('race', 'silent');
    const replicas = [harness.service, replica].map((runtime) => runtime.unitOfWork('race'));
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const request = await harness.open();
      const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
      const transaction = await connection.getTransaction(signature, {
        maxSupportedTransactionVersion: 0,
        commitment: 'confirmed',
      });
      const page = {
        transactions: [{ address: request.reference, signature, transaction: transaction! }],
        unreadable: [],
        cursor: {},
      };
      // Both replicas record the page at the same moment, while both detectors scan the chain too.
      await Promise.all(
        replicas.map((uow) => uow.run({}, (tx) => recordTransfers(tx, page, criteria, logger, new Map()))),
      );
      const rows: unknown[] = await harness.service.dataSource.query(
        'SELECT 1 FROM transfers WHERE signature = $1',
        [signature],
      );
      expect(rows).toHaveLength(1);
      expect(await harness.request(request.reference)).toMatchObject({
        status: 'settled',
        received_base_units: request.amount_base_units,
      });
      expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(1);
    }
  });
});
