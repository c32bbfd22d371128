import type { Envelope, MessageDefinition, ServiceName } from '@gateway/contracts';
import { createEnvelope, type Broker } from '@gateway/messaging';
import { waitForParkedMessages, type ParkedMessage } from '@gateway/testkit-core';

/**
 * An envelope of `definition` whose payload is `payload` with `poison` over it (values its contract refuses), as a
 * faulty producer could send it: `createEnvelope` itself never lets such a payload out.
 */
export function poisonedEnvelope<P>(
  definition: MessageDefinition<P>,
  payload: P,
  poison: Record<string, unknown>,
): Envelope<unknown> {
  // Readers pass over fields a contract does not name (docs/adr/0038-message-compatibility.md): a poison there would
  // be read, never refused, and the test waiting for its parking would only time out.
  const named = Object.keys((definition.schema.describe() as { keys?: object }).keys ?? {});
  const unnamed = Object.keys(poison).filter((key) => !named.includes(key));
  if (unnamed.length > 0)
    throw new Error(`${definition.name} names no ${unnamed.join(', ')}: poison a field its contract names`);
  const envelope = createEnvelope(definition, payload);
  return { ...envelope, payload: { ...envelope.payload, ...poison } };
}

/**
 * Publishes `envelope` on `client` as it stands (a message its consumer must refuse) and waits until `service` parks
 * it on its `kind` parking queue; answers what that queue held, for the test to check it is this message, and why.
 */
export async function publishAndAwaitParking(
  client: Broker,
  config: { AMQP_PREFIX: string },
  service: ServiceName,
  kind: 'commands' | 'events',
  envelope: Envelope<unknown>,
): Promise<ParkedMessage[]> {
  await client.publishEnvelope(envelope, {});
  return waitForParkedMessages(
    `${config.AMQP_PREFIX}${service}.${kind}.parking`,
    `the parked ${envelope.name}`,
  );
}

/** A row of a `test.each` over poisoned messages: the message's name (for the title), its definition, a valid payload. */
export type PoisonCase = [name: string, definition: MessageDefinition<unknown>, payload: object];

/** The `PoisonCase` of `definition` with `payload`, which its contract accepts until the test poisons it. */
export function poisonCase<P extends object>(definition: MessageDefinition<P>, payload: P): PoisonCase {
  return [definition.name, definition as MessageDefinition<unknown>, payload];
}
