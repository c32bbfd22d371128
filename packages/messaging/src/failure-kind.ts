import type { ReplyError } from '@gateway/contracts';
import {
  BrokerUnavailableError,
  CommandError,
  InvalidMessageError,
  NewerMessageError,
  NotYetError,
  RpcTimeoutError,
} from './errors';

/**
 * What a handler's failure says about trying again:
 * - `permanent`: the same message fails the same way every time (invalid data reaching the database, a constraint
 *   violation, a message that breaks its contract). It is answered or parked at once, never redelivered.
 * - `transient`: the infrastructure hiccuped (connection lost, timeout, serialization failure, deadlock), or what the
 *   message follows was not handled yet (`NotYetError`); the same message will likely succeed later, so it is
 *   redelivered.
 * - `unknown`: anything else (a bug, an unrecognised library error); redelivered a bounded number of times.
 */
export type FailureKind = 'permanent' | 'transient' | 'unknown';

/** SQLSTATE classes (first two characters) and codes, PostgreSQL appendix A. */
const PERMANENT_SQLSTATE_CLASSES = new Set([
  '22', // data exception: invalid byte sequence (22021), invalid text representation (22P02), out of range (22003)
  '23', // integrity constraint violation: unique (23505), check (23514), not null (23502), foreign key (23503)
]);
const TRANSIENT_SQLSTATE_CLASSES = new Set([
  '08', // connection exception
  '53', // insufficient resources (too many connections, out of memory or disk)
]);
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization failure
  '40P01', // deadlock detected
  '55P03', // lock not available (lock_timeout)
  '57014', // query canceled (statement_timeout)
  '25P03', // idle-in-transaction session timeout: this process froze mid-transaction and its session was ended
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, shutting down)
]);
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * Connection failures the drivers report without a code (or with a code that also means other things): the
 * connection, never the request, failed.
 */
const TRANSIENT_DRIVER_MESSAGES = [
  /^Connection terminated/, // pg: the server closed the socket, or the connect timed out (pg-pool)
  /^timeout exceeded when trying to connect$/, // pg-pool: no connection free within connectionTimeoutMillis
  /^Client has encountered a connection error/, // pg: a client whose socket already failed
  /^Client was closed/, // pg
  /^Cannot use a pool after calling end/, // pg-pool: a data source closing under a shutdown
  // TypeORM releases a transaction's query runner when its connection fails (the server ended a session idle in
  // transaction), so the transaction's next query says so instead.
  /^Query runner already released/,
  // The same, from a query runner's manager or repository (seen in the fault suite: the ledger's connections killed).
  /^Database connection provided by a query runner was already released/,
  /is not currently accepting connections$/, // PostgreSQL 55000: the database closed to connections for now
  /^Stream isn't writeable/, // ioredis: disconnected, with the offline queue off
  /^Connection is closed\.$/, // ioredis
  /^Command timed out$/, // ioredis: commandTimeout
  /^Reached the max retries per request limit/, // ioredis: maxRetriesPerRequest
  /^Channel (closed|ended)/, // amqplib: a publish or an ack on a channel the broker connection took down
  /^Connection closed/, // amqplib
];
/** Error names of libraries whose failures are about the data, never the moment (joi, TypeORM). */
const PERMANENT_ERROR_NAMES = new Set(['ValidationError', 'EntityNotFoundError']);

/** A failure and the errors it wraps (TypeORM's QueryFailedError holds the driver's, others a `cause`). */
function errorChain(err: unknown): Array<{ code?: unknown; message?: unknown }> {
  const chain: Array<{ code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown }> = [];
  for (let current: unknown = err; current && chain.length < 4;) {
    const candidate = current as (typeof chain)[number];
    chain.push(candidate);
    current = candidate.driverError ?? candidate.cause;
  }
  return chain;
}

/** The code of a failure: PostgreSQL's SQLSTATE or Node's socket code, possibly wrapped. */
function errorCode(err: unknown): string | undefined {
  const code = errorChain(err).find((candidate) => typeof candidate.code === 'string')?.code;
  return code as string | undefined;
}

/** Classifies a handler failure; the broker retries only what is not permanent. */
export function failureKind(err: unknown): FailureKind {
  if (err instanceof InvalidMessageError) return 'permanent';
  // A refusal is the answer; SERVICE_UNAVAILABLE is a dependency (a rail) not answering in time.
  if (err instanceof CommandError) return err.code === 'SERVICE_UNAVAILABLE' ? 'transient' : 'permanent';
  if (err instanceof BrokerUnavailableError || err instanceof RpcTimeoutError) return 'transient';
  // What the message follows is on its way: waiting for it is no bug, however many tries it takes.
  if (err instanceof NotYetError) return 'transient';
  // A newer release's message: one of its replicas reads it.
  if (err instanceof NewerMessageError) return 'transient';
  if (
    err instanceof Error &&
    (PERMANENT_ERROR_NAMES.has(err.name) || (err as { isJoi?: unknown }).isJoi === true)
  )
    return 'permanent';
  const lostConnection = errorChain(err).some(
    (candidate) =>
      typeof candidate.message === 'string' &&
      TRANSIENT_DRIVER_MESSAGES.some((pattern) => pattern.test(candidate.message as string)),
  );
  if (lostConnection) return 'transient';
  const code = errorCode(err);
  if (code === undefined) return 'unknown';
  if (TRANSIENT_SOCKET_CODES.has(code)) return 'transient';
  if (code.length !== 5) return 'unknown';
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) return 'transient';
  if (PERMANENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) return 'permanent';
  return 'unknown';
}

/** The error reply a command refused for good gets: bad data is the caller's to fix, anything else is ours. */
export function permanentFailureReply(err: unknown): ReplyError {
  const code = errorCode(err);
  const badData =
    err instanceof InvalidMessageError ||
    (err instanceof Error && (err as { isJoi?: unknown }).isJoi === true) ||
    code?.startsWith('22') === true;
  return badData
    ? { code: 'INVALID_FIELDS', message: 'Campos inválidos.' }
    : { code: 'INTERNAL_ERROR', message: 'Erro interno do servidor.' };
}
