import type { DataSource, EntityManager } from 'typeorm';
import type { Envelope, MessageDefinition } from '@gateway/contracts';
import { activeTraceHeaders } from '@gateway/observability';
import { createEnvelope, type MessageOrigin } from './envelope';
import type { MessageContext } from './broker';

/** One database transaction, with an outbox to emit messages that commit (or roll back) with the state change. */
export interface Transaction {
  manager: EntityManager;
  emit<P>(definition: MessageDefinition<P>, payload: P, origin?: MessageOrigin): Promise<Envelope<P>>;
  /**
   * Runs `effect` once this transaction has committed (never on a rollback, nor on a redelivery answered from the
   * inbox): for what must count a state change exactly once, such as metrics.
   */
  afterCommit(effect: () => void): void;
}

/**
 * Runs state changes together with their outgoing messages (transactional outbox), and deduplicates incoming
 * messages by id (inbox), so a redelivered message has one effect and returns its first result.
 */
export class UnitOfWork {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly dataSource: DataSource,
    /** Inbox namespace: the consuming service or handler. */
    private readonly consumer: string,
  ) {}

  /** Called after every commit that emitted messages (the relay uses it to publish without waiting for a poll). */
  onCommitWithMessages(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Runs `work` in a transaction; messages emitted inside are caused by, and correlated with, `origin`. */
  async run<T>(origin: MessageOrigin, work: (tx: Transaction) => Promise<T>): Promise<T> {
    const emitted = new Emitted();
    const committed: Array<() => void> = [];
    const result = await this.dataSource.transaction(async (manager) => {
      const value = await emitted.during(() => work(this.transaction(manager, origin, emitted, committed)));
      if (emitted.rows.length > 0) await manager.query(insertOutboxRows(1), outboxColumns(emitted.rows));
      return value;
    });
    if (emitted.rows.length > 0) this.notify();
    for (const effect of committed) effect();
    return result;
  }

  /**
   * Processes an incoming message at most once in effect: the inbox row, the state change and the outgoing messages
   * commit together. A redelivery returns the stored result without running `work` again.
   */
  async once<T>(
    context: Pick<MessageContext, 'envelope'>,
    work: (tx: Transaction) => Promise<T>,
  ): Promise<T> {
    const { envelope } = context;
    const origin = { correlationId: envelope.correlation_id, causationId: envelope.id };
    const emitted = new Emitted();
    const committed: Array<() => void> = [];
    const outcome = await this.dataSource.transaction(async (manager) => {
      const inserted: Array<unknown> = await manager.query(
        `INSERT INTO inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING message_id`,
        [this.consumer, envelope.id],
      );
      if (inserted.length === 0) return (await this.stored<T>(manager, envelope.id))?.value as T;
      const value = await emitted.during(() => work(this.transaction(manager, origin, emitted, committed)));
      // The answer and the messages emitted (none, or many) go in one statement: one round trip.
      await manager.query(
        `WITH answered AS (UPDATE inbox SET result = $3 WHERE consumer = $1 AND message_id = $2)
         ${insertOutboxRows(4)}`,
        [
          this.consumer,
          envelope.id,
          JSON.stringify({ value: value ?? null }),
          ...outboxColumns(emitted.rows),
        ],
      );
      return value;
    });
    if (emitted.rows.length > 0) this.notify();
    for (const effect of committed) effect();
    return outcome;
  }

  /**
   * The result `once` stored for this message, if it was processed already. A handler that must call out over the
   * network (an endpoint, a PSP, a wallet) checks it first, makes its call outside any transaction, then records the
   * outcome with `once`: a redelivery of a processed message answers the stored result without calling again (two
   * deliveries racing may both call; the first to commit is the answer).
   */
  async storedResult<T>(context: Pick<MessageContext, 'envelope'>): Promise<{ value: T } | undefined> {
    return this.stored<T>(this.dataSource.manager, context.envelope.id);
  }

  /**
   * Records, in its own short transaction, that this message is about to cause an effect outside our database (a rail
   * call) whose answer may be lost on the way back. A retry of the same message then learns from `wasAttempted` that
   * the effect may have happened, even once that effect has changed what the retry would check (a payment made final).
   */
  async recordAttempt(context: Pick<MessageContext, 'envelope'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [this.attemptConsumer, context.envelope.id],
    );
  }

  async wasAttempted(context: Pick<MessageContext, 'envelope'>): Promise<boolean> {
    const rows: Array<unknown> = await this.dataSource.query(
      `SELECT 1 FROM inbox WHERE consumer = $1 AND message_id = $2`,
      [this.attemptConsumer, context.envelope.id],
    );
    return rows.length > 0;
  }

  /** Attempts share the inbox table (and its purge) under their own namespace. */
  private get attemptConsumer(): string {
    return `${this.consumer}:attempt`;
  }

  private async stored<T>(manager: EntityManager, messageId: string): Promise<{ value: T } | undefined> {
    const rows: Array<{ result: { value: T } | null }> = await manager.query(
      `SELECT result FROM inbox WHERE consumer = $1 AND message_id = $2`,
      [this.consumer, messageId],
    );
    return rows[0] ? { value: rows[0].result?.value as T } : undefined;
  }

  private transaction(
    manager: EntityManager,
    origin: MessageOrigin,
    emitted: Emitted,
    committed: Array<() => void>,
  ): Transaction {
    return {
      manager,
      afterCommit(effect) {
        committed.push(effect);
      },
      emit: async (definition, payload, messageOrigin) => {
        const envelope = createEnvelope(definition, payload, { ...origin, ...messageOrigin });
        // Written to the outbox when the work is done, in emit order, by the statement that ends it (see `run` and
        // `once`). The trace active now goes with the row: the relay's publish span continues it, however often it
        // retries.
        emitted.add({
          messageId: envelope.id,
          name: envelope.name,
          envelope: JSON.stringify(envelope),
          headers: JSON.stringify(activeTraceHeaders() ?? {}),
        });
        return envelope;
      },
    };
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** A message emitted in a unit of work, as its outbox row stores it. */
interface OutboxRow {
  messageId: string;
  name: string;
  envelope: string;
  headers: string;
}

/** The messages a unit of work emits while its work runs; the statement that ends the work writes them. */
class Emitted {
  readonly rows: OutboxRow[] = [];
  private ended = false;

  /** Runs the work; an emit after it ended (one not awaited inside it) throws instead of being lost. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      this.ended = true;
    }
  }

  add(row: OutboxRow): void {
    if (this.ended)
      throw new Error(`${row.name} emitted after its unit of work ended: await every emit inside the work`);
    this.rows.push(row);
  }
}

/**
 * Inserts every row emitted, in emit order (the arrays are read in step, and `seq` follows the order of the rows), from
 * the four arrays of `outboxColumns` at parameters `$first` onwards.
 */
function insertOutboxRows(first: number): string {
  const [ids, names, envelopes, headers] = [first, first + 1, first + 2, first + 3];
  return `INSERT INTO outbox (message_id, name, envelope, headers)
    SELECT message_id, name, envelope, headers
      FROM unnest($${ids}::text[], $${names}::text[], $${envelopes}::jsonb[], $${headers}::jsonb[])
           WITH ORDINALITY AS emitted (message_id, name, envelope, headers, n)
     ORDER BY n`;
}

function outboxColumns(rows: readonly OutboxRow[]): [string[], string[], string[], string[]] {
  return [
    rows.map((row) => row.messageId),
    rows.map((row) => row.name),
    rows.map((row) => row.envelope),
    rows.map((row) => row.headers),
  ];
}
