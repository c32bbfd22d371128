import type { CommandDefinition } from '@gateway/contracts';
import {
  BrokerUnavailableError,
  CommandError,
  RpcTimeoutError,
  type Broker,
  type MessageContext,
} from '@gateway/messaging';
import { counter } from '@gateway/observability';

const railFailures = counter(
  'payment_rail_failures_total',
  'Rail commands that failed, by command and code',
  ['command', 'code'],
);

const UNAVAILABLE = 'O provedor de pagamento não respondeu a tempo. Tente novamente.';

/**
 * Codes a rail may answer that the caller can act on. Any other refusal (the PSP rejecting what we sent, a defect in
 * the rail) fails the same way every time: it is INTERNAL_ERROR at once, never a SERVICE_UNAVAILABLE retried for ever.
 */
const PASSED_THROUGH = new Set(['INVALID_STATUS', 'NOT_FOUND', 'INVALID_AMOUNT', 'SERVICE_UNAVAILABLE']);

/** Calls a rail (PIX adapter, Solana watcher) and waits for it, turning every failure into a CommandError. */
export class Rails {
  constructor(
    private readonly broker: Broker,
    private readonly timeoutMs: number,
  ) {}

  /**
   * `step` makes the rail command's message id deterministic (`<incoming id>:<step>`), so a redelivered or retried
   * command reaches the rail's inbox as the same message and never opens a second charge.
   */
  async call<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    context: Pick<MessageContext, 'envelope'>,
    step: string,
  ): Promise<R> {
    const { envelope } = context;
    return this.request(definition, payload, {
      messageId: `${envelope.id}:${step}`,
      correlationId: envelope.correlation_id,
      causationId: envelope.id,
    });
  }

  /** Asks a rail a question (a status read): nothing to deduplicate, so every call is a new message. */
  ask<P, R>(definition: CommandDefinition<P, R>, payload: P): Promise<R> {
    return this.request(definition, payload, {});
  }

  private async request<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    origin: { messageId?: string; correlationId?: string; causationId?: string },
  ): Promise<R> {
    try {
      const reply = await this.broker.request(definition, payload, { timeoutMs: this.timeoutMs, ...origin });
      if (reply.ok) return reply.result;
      railFailures.inc({ command: definition.name, code: reply.error.code });
      if (PASSED_THROUGH.has(reply.error.code)) throw new CommandError(reply.error.code, reply.error.message);
      throw new CommandError('INTERNAL_ERROR', 'Erro interno do servidor.');
    } catch (err) {
      if (err instanceof RpcTimeoutError || err instanceof BrokerUnavailableError) {
        railFailures.inc({ command: definition.name, code: 'SERVICE_UNAVAILABLE' });
        throw new CommandError('SERVICE_UNAVAILABLE', UNAVAILABLE);
      }
      throw err;
    }
  }
}
