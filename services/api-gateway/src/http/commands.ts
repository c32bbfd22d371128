import type { Request, RequestHandler, Response } from 'express';
import type { CommandDefinition } from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { CommandError, type Broker } from '@gateway/messaging';
import { identityOf } from './identity';
import { pathId, type PathIdPrefix } from './validation';

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

/**
 * A route that sends one command, built from the request for the caller's business, and answers its result as it
 * is with `status`. `payloadOf` validates what it reads (body, query, path ids).
 */
export function commandRoute<P, R>(
  commands: CommandSender,
  definition: CommandDefinition<P, R>,
  payloadOf: (req: Request, businessId: string) => P,
  options: { status?: number; timeoutMs?: number } = {},
): RequestHandler {
  return asyncHandler(async (req, res) => {
    const payload = payloadOf(req, identityOf(res).businessId);
    res.status(options.status ?? 200).json(await commands.send(definition, payload, res, options.timeoutMs));
  });
}

/** What a command about one of the caller's resources carries: the business and the resource's id. */
type OwnResourcePayload<K extends string> = { business_id: string } & Record<K, string>;

/** The payload of a command about one of the caller's resources, named by the path parameter `idParam`. */
export function ownResourcePayload<K extends string>(
  idParam: K,
  prefix: PathIdPrefix,
): (req: Request, businessId: string) => OwnResourcePayload<K> {
  // An id not of `prefix`'s shape cannot exist: NOT_FOUND before any command is sent.
  return (req, businessId) =>
    ({ business_id: businessId, [idParam]: pathId(prefix, req.params[idParam]) }) as OwnResourcePayload<K>;
}
