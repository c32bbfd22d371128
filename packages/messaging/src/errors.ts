import type { ErrorCode } from '@gateway/contracts';

/** A command refused for a business reason: the caller gets it as a reply; the message is not retried. */
export class CommandError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** The broker is not connected right now; the caller decides (retry later, or 503 at the edge). */
export class BrokerUnavailableError extends Error {
  constructor(message = 'message broker unavailable') {
    super(message);
    this.name = 'BrokerUnavailableError';
  }
}

/** No reply within the per-call timeout: the command may or may not have been applied (idempotently). */
export class RpcTimeoutError extends Error {
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super(`no reply to ${command} within ${timeoutMs} ms`);
    this.name = 'RpcTimeoutError';
  }
}

/** A message that does not match its contract: parked at once, never half-processed. */
export class InvalidMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMessageError';
  }
}

/**
 * A well-formed message whose type no contract of this release names. Bad data if this service handles that name (its
 * own release wrote a message it cannot read); otherwise a newer release's type, bound to a shared queue by that
 * release's topology, and left for its replicas like a NewerMessageError (docs/adr/0038-message-compatibility.md).
 */
export class UnknownMessageError extends InvalidMessageError {
  constructor(
    readonly messageName: string,
    /** A command's caller's deadline (epoch ms), when the envelope says it. */
    readonly deadline?: number,
  ) {
    super(`unknown message type ${messageName}`);
    this.name = 'UnknownMessageError';
  }
}

/**
 * A message of a newer release than this process: a version of a message type newer than any this process reads, or a
 * message its service handles only in a newer release. During a rolling upgrade the replicas of the new release share
 * the queue, so it is retried later (transient, like NotYetError) for one of them to take; parked only if none comes
 * within the retry window (an upgrade rolled back), and never refused as bad data.
 */
export class NewerMessageError extends Error {
  constructor(
    message: string,
    /** A command's caller's deadline (epoch ms), when the envelope says it. */
    readonly deadline?: number,
  ) {
    super(message);
    this.name = 'NewerMessageError';
  }
}

/**
 * What this message needs has not been handled yet: another message it follows (usually of another queue, or of the
 * same producer delivered out of order) is still on its way. Transient: retried with backoff for the whole retry
 * window like an outage, never counted as a bug's failure, and parked only if what it waits for never comes.
 */
export class NotYetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotYetError';
  }
}
