import type Joi from 'joi';
import type { ErrorCode } from './errors';

export type MessageKind = 'command' | 'event';

/** Every service of the stack; each may own a commands and an events queue. */
export const serviceNames = [
  'api-gateway',
  'payment',
  'pix-adapter',
  'solana-watcher',
  'checkout',
  'customer',
  'webhook-dispatcher',
  'ledger',
] as const;

/** The service whose commands queue receives a command. */
export type ServiceName = (typeof serviceNames)[number];

/**
 * The services that exchange no message and own no queue: the merchant dashboard, a web app that acts through the
 * gateway's HTTP APIs like any client.
 */
export const webServiceNames = ['dashboard'] as const;

/** Every service of the stack: each a folder of services/, one compose service and one Kubernetes Deployment. */
export const deployedServiceNames = [...serviceNames, ...webServiceNames] as const;

/**
 * A message type under its stable, versioned name (`payment.confirmed.v1`). The name is the wire identity: it is the
 * AMQP `type`, the routing key of events, and it never changes; a new payload shape gets a new version.
 */
export interface MessageDefinition<TPayload> {
  readonly name: string;
  readonly kind: MessageKind;
  readonly schema: Joi.ObjectSchema<TPayload>;
  /** Commands only: the service that handles it. */
  readonly handledBy?: ServiceName;
  /** Commands only: the schema of a successful reply's result. */
  readonly resultSchema?: Joi.Schema;
}

export type PayloadOf<D> = D extends MessageDefinition<infer P> ? P : never;

export interface CommandDefinition<TPayload, TResult> extends MessageDefinition<TPayload> {
  readonly kind: 'command';
  readonly handledBy: ServiceName;
  readonly resultSchema: Joi.Schema<TResult>;
  /**
   * The codes its handler may refuse it with (the backbone's SERVICE_UNAVAILABLE and INTERNAL_ERROR aside). A caller
   * receives any other code as INTERNAL_ERROR: a refusal nobody declared is a defect, never the caller's to act on.
   */
  readonly refusals: readonly ErrorCode[];
  /** Phantom field carrying the result type. */
  readonly __result?: TResult;
}

/** An event: published on the events exchange under its name, for every service that handles it. */
export interface EventDefinition<TPayload> extends MessageDefinition<TPayload> {
  readonly kind: 'event';
}

export type ResultOf<D> = D extends CommandDefinition<unknown, infer R> ? R : never;

// A segment may hold `_` for public event names that do (`subscription.cycle_retry_scheduled`, ADR 0048).
const NAME_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+\.v[1-9][0-9]*$/;

function checkName(name: string): void {
  if (!NAME_PATTERN.test(name))
    throw new Error(`message name must look like 'payment.confirmed.v1': ${name}`);
}

export function defineEvent<TPayload>(
  name: string,
  schema: Joi.ObjectSchema<TPayload>,
): EventDefinition<TPayload> {
  checkName(name);
  return { name, kind: 'event', schema };
}

export function defineCommand<TPayload, TResult>(
  name: string,
  handledBy: ServiceName,
  schema: Joi.ObjectSchema<TPayload>,
  resultSchema: Joi.Schema<TResult>,
  refusals: readonly ErrorCode[],
): CommandDefinition<TPayload, TResult> {
  checkName(name);
  return { name, kind: 'command', handledBy, schema, resultSchema, refusals };
}

/** `payment.confirmed.v1` -> { type: 'payment.confirmed', version: 1 }. */
export function splitName(name: string): { type: string; version: number } {
  const at = name.lastIndexOf('.v');
  return { type: name.slice(0, at), version: Number(name.slice(at + 2)) };
}
