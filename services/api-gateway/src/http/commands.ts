import type { Response } from 'express';
import type { CommandDefinition } from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { CommandError, type Broker } from '@gateway/messaging';

/** Sends the contract commands behind each route and turns their replies into results or public errors. */
export class CommandSender {
  constructor(
    private readonly broker: Broker,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The reply's result; a refusal becomes its public error, no answer in time (or no broker) SERVICE_UNAVAILABLE.
   * An idempotent request's command carries the id derived from its key, so downstream inboxes deduplicate retries.
   */
  async send<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    res: Response,
    timeoutMs: number = this.timeoutMs,
  ): Promise<R> {
    try {
      return await this.broker.call(definition, payload, {
        timeoutMs,
        correlationId: res.locals.requestId as string | undefined,
        messageId: res.locals.commandId as string | undefined,
      });
    } catch (err) {
      if (err instanceof CommandError) throw new AppError(err.code, err.message);
      throw err;
    }
  }
}
