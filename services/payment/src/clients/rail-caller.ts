import type { CommandDefinition } from '@gateway/contracts';
import type { Broker, MessageContext } from '@gateway/messaging';

/** Calls a rail (PIX adapter, Solana watcher) and waits for it; every failure is a CommandError with a public code. */
export class RailCaller {
  constructor(
    private readonly broker: Broker,
    private readonly timeoutMs: number,
  ) {}

  /**
   * `step` makes the rail command's message id deterministic (`<incoming id>:<step>`), so a redelivered or retried
   * command reaches the rail's inbox as the same message and never opens a second charge. The call gives up when the
   * incoming command's caller does.
   */
  call<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    context: Pick<MessageContext, 'envelope'>,
    step: string,
  ): Promise<R> {
    return this.broker.call(definition, payload, {
      timeoutMs: this.timeoutMs,
      messageId: `${context.envelope.id}:${step}`,
      within: context,
    });
  }

  /** As `call`, under a message id the caller derives itself (a step no incoming command names: a scheduler's). */
  callAs<P, R>(definition: CommandDefinition<P, R>, payload: P, messageId: string): Promise<R> {
    return this.broker.call(definition, payload, { timeoutMs: this.timeoutMs, messageId });
  }

  /** Asks a rail a question (a status read): nothing to deduplicate, so every call is a new message. */
  ask<P, R>(definition: CommandDefinition<P, R>, payload: P): Promise<R> {
    return this.broker.call(definition, payload, { timeoutMs: this.timeoutMs });
  }
}
