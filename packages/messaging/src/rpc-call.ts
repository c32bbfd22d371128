import {
  backboneErrorCodes,
  type CommandDefinition,
  type Envelope,
  type ErrorCode,
  type Reply,
} from '@gateway/contracts';
import { counter } from '@gateway/observability';
import { BrokerUnavailableError, CommandError, InvalidMessageError, RpcTimeoutError } from './errors';

/** How one service calls another and waits for the answer. */
export interface CallOptions {
  /** The longest this caller waits; less when the message it is handling has an earlier deadline. */
  timeoutMs: number;
  /** Deterministic id, so a retried call reaches the callee's inbox as the same command. */
  messageId?: string;
  /** The message being handled when the call is made: its flow, its id as the cause, and its deadline. */
  within?: { envelope: Pick<Envelope, 'id' | 'correlation_id' | 'deadline'> };
  /** The flow a call that handles no message belongs to (an HTTP request id). */
  correlationId?: string;
}

/** The request a call sends: what `Broker.request` takes. */
export interface CallRequest {
  timeoutMs: number;
  /** When the call stops waiting (epoch ms): exactly the inherited deadline when that is the earlier. */
  deadline: number;
  messageId?: string;
  correlationId?: string;
  causationId?: string;
}

const callFailures = counter(
  'rpc_call_failures_total',
  'Commands called that did not succeed, by command and the code the caller saw',
  ['command', 'code'],
);

const UNAVAILABLE_MESSAGE = 'Serviço temporariamente indisponível. Tente novamente.';
const INTERNAL_MESSAGE = 'Erro interno do servidor.';

/**
 * The request to send for a call, or undefined when the message it handles has no time left: a hop never waits
 * longer than its caller still will.
 */
export function callRequest(options: CallOptions, now = Date.now()): CallRequest | undefined {
  const inherited = options.within?.envelope.deadline;
  const deadline = Math.min(now + options.timeoutMs, inherited ? Date.parse(inherited) : Infinity);
  if (deadline <= now) return undefined;
  return {
    timeoutMs: deadline - now,
    deadline,
    ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
    ...(options.within
      ? { correlationId: options.within.envelope.correlation_id, causationId: options.within.envelope.id }
      : options.correlationId === undefined
        ? {}
        : { correlationId: options.correlationId }),
  };
}

/**
 * A reply's result, or the CommandError its caller acts on: a code the command declares (or the backbone's own)
 * passes as it is; any other is INTERNAL_ERROR, a defect the caller must not mistake for its own refusal.
 */
export function unwrapReply<R>(definition: CommandDefinition<unknown, R>, reply: Reply<R>): R {
  if (reply.ok) return reply.result;
  const { code, message } = reply.error;
  const declared =
    definition.refusals.includes(code) || (backboneErrorCodes as readonly ErrorCode[]).includes(code);
  callFailures.inc({ command: definition.name, code: declared ? code : 'INTERNAL_ERROR' });
  if (!declared) throw new CommandError('INTERNAL_ERROR', INTERNAL_MESSAGE);
  throw new CommandError(code, message);
}

/** No answer in time, no time left, or no broker: the caller may try again later. */
export function unavailable(definition: CommandDefinition<unknown, unknown>): CommandError {
  callFailures.inc({ command: definition.name, code: 'SERVICE_UNAVAILABLE' });
  return new CommandError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE);
}

/**
 * A call that failed before any reply was unwrapped: unavailable when that may pass; INTERNAL_ERROR when what was sent
 * or answered breaks its contract (a defect on one side, never bad input of whoever asked the caller).
 */
export function callFailure(definition: CommandDefinition<unknown, unknown>, err: unknown): CommandError {
  if (err instanceof RpcTimeoutError || err instanceof BrokerUnavailableError) return unavailable(definition);
  if (err instanceof InvalidMessageError) {
    callFailures.inc({ command: definition.name, code: 'INTERNAL_ERROR' });
    return new CommandError('INTERNAL_ERROR', INTERNAL_MESSAGE);
  }
  throw err;
}
