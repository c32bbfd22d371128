import { randomUUID } from 'node:crypto';
import {
  envelopeSchema,
  findMessage,
  knownVersionsOf,
  splitName,
  type Envelope,
  type MessageDefinition,
} from '@gateway/contracts';
import { InvalidMessageError, NewerMessageError, UnknownMessageError } from './errors';

/**
 * How every message is checked, going out and coming in: a tolerant reader (docs/adr/0038-message-compatibility.md).
 * Fields its contract does not name are accepted and kept, so a newer release may add fields to a message while the
 * older one's replicas still run, and a payload forwarded whole passes them on; what the contract names must match.
 */
const MESSAGE_CHECK = { abortEarly: false, convert: false, allowUnknown: true } as const;

export interface MessageOrigin {
  /** The business flow this message belongs to (an HTTP request id, say); new flows start a new one. */
  correlationId?: string;
  /** The id of the message that caused this one. */
  causationId?: string | null;
  /** Deterministic id, for commands that must be deduplicated across caller retries. */
  messageId?: string;
  /** Commands a caller waits for: when it stops waiting (epoch ms). */
  deadline?: number;
}

/** Validates a payload against its contract and wraps it; an invalid payload is never published. */
export function createEnvelope<P>(
  definition: MessageDefinition<P>,
  payload: P,
  origin: MessageOrigin = {},
): Envelope<P> {
  const { value, error } = definition.schema.validate(payload, MESSAGE_CHECK);
  if (error) throw new InvalidMessageError(`${definition.name}: ${error.message}`);
  const id = origin.messageId ?? randomUUID();
  const { type, version } = splitName(definition.name);
  return {
    id,
    name: definition.name,
    type,
    version,
    occurred_at: new Date().toISOString(),
    correlation_id: origin.correlationId ?? id,
    causation_id: origin.causationId ?? null,
    ...(origin.deadline === undefined ? {} : { deadline: new Date(origin.deadline).toISOString() }),
    payload: value as P,
  };
}

/** Parses and validates an incoming body against the envelope schema and its message's contract. */
export function parseEnvelope(body: Buffer): Envelope {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    throw new InvalidMessageError('body is not JSON');
  }
  const envelope = envelopeSchema.validate(raw, MESSAGE_CHECK);
  if (envelope.error) throw new InvalidMessageError(`bad envelope: ${envelope.error.message}`);
  const definition = findMessage(envelope.value.name);
  if (!definition) {
    const { type, version } = splitName(envelope.value.name);
    const newest = knownVersionsOf(type).at(-1);
    const deadline = envelope.value.deadline === undefined ? undefined : Date.parse(envelope.value.deadline);
    if (newest !== undefined && version > newest)
      throw new NewerMessageError(
        `${envelope.value.name} is newer than this release reads (${type} up to v${newest})`,
        deadline,
      );
    throw new UnknownMessageError(envelope.value.name, deadline);
  }
  const payload = definition.schema.validate(envelope.value.payload, MESSAGE_CHECK);
  if (payload.error) throw new InvalidMessageError(`${definition.name}: ${payload.error.message}`);
  return { ...envelope.value, payload: payload.value };
}
