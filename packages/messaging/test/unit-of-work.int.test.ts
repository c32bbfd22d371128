import { createEnvelope } from '../src/envelope';
import { UnitOfWork, type Transaction } from '../src';
import { eventPayload, id, openBackbone, sampleEvent, type Backbone } from './backbone-fixture';

describe('unit of work: effects after commit', () => {
  let backbone: Backbone;
  let uow: UnitOfWork;

  beforeAll(async () => {
    backbone = await openBackbone();
    uow = new UnitOfWork(backbone.dataSource, 'after-commit');
  });

  afterAll(() => backbone?.close());

  const effectRows = (messageId: string): Promise<unknown[]> =>
    backbone.dataSource.query(`SELECT 1 FROM effects WHERE message_id = $1`, [messageId]);

  const recordEffect = (tx: Transaction, key: string) =>
    tx.manager.query(`INSERT INTO effects (consumer, message_id) VALUES ('after-commit', $1)`, [key]);

  test('an effect runs once the transaction has committed: what it committed is visible to others by then', async () => {
    const key = id('key');
    let visibleWhenRun: Promise<unknown[]> | undefined;
    await uow.run({}, async (tx) => {
      await recordEffect(tx, key);
      tx.afterCommit(() => {
        visibleWhenRun = effectRows(key);
      });
      // Not yet: the transaction is still open.
      expect(visibleWhenRun).toBeUndefined();
    });
    expect(visibleWhenRun).toBeDefined();
    expect(await visibleWhenRun).toHaveLength(1);
  });

  test('a transaction that rolls back runs none of its effects', async () => {
    const key = id('key');
    let runs = 0;
    await expect(
      uow.run({}, async (tx) => {
        await recordEffect(tx, key);
        tx.afterCommit(() => (runs += 1));
        throw new Error('refused after the effect was registered');
      }),
    ).rejects.toThrow('refused after the effect was registered');
    expect(runs).toBe(0);
    expect(await effectRows(key)).toHaveLength(0);
  });

  test('a message delivered twice runs its effects once: the redelivery is answered from the inbox', async () => {
    const envelope = createEnvelope(sampleEvent, eventPayload(4200));
    let runs = 0;
    const handle = () =>
      uow.once({ envelope }, async (tx) => {
        await recordEffect(tx, envelope.id);
        tx.afterCommit(() => (runs += 1));
        return 'handled';
      });
    expect(await handle()).toBe('handled');
    expect(await handle()).toBe('handled');
    expect(runs).toBe(1);
    expect(await effectRows(envelope.id)).toHaveLength(1);
  });

  test("a message emitted after its work ended throws instead of being lost; those emitted inside are written in order with the inbox's answer", async () => {
    const envelope = createEnvelope(sampleEvent, eventPayload(4300));
    let kept!: Transaction;
    const emittedIds = await uow.once({ envelope }, async (tx) => {
      kept = tx;
      const ids: string[] = [];
      for (let n = 0; n < 3; n += 1) ids.push((await tx.emit(sampleEvent, eventPayload(4301 + n))).id);
      return ids;
    });
    await expect(kept.emit(sampleEvent, eventPayload(4309))).rejects.toThrow(/after its unit of work ended/);

    const rows: Array<{ message_id: string }> = await backbone.dataSource.query(
      `SELECT message_id FROM outbox WHERE message_id = ANY($1) ORDER BY seq`,
      [emittedIds],
    );
    expect(rows.map((row) => row.message_id)).toEqual(emittedIds);
    const [answer]: Array<{ result: unknown }> = await backbone.dataSource.query(
      `SELECT result FROM inbox WHERE consumer = 'after-commit' AND message_id = $1`,
      [envelope.id],
    );
    expect(answer!.result).toEqual({ value: emittedIds });
  });
});
