import { webhookEventNames, type WebhookEventName } from '@gateway/contracts';

export type WebhookInputCheck =
  { ok: true; value: { url: string; events: WebhookEventName[] } } | { ok: false; invalidFields: string[] };

const allowedEvents: ReadonlySet<string> = new Set(webhookEventNames);

/** docs/adr/0009-webhook-delivery-and-signatures.md: the URL must be https://, and every event name one of the four public payment events. */
export function checkWebhookInput(input: { url: string; events: readonly string[] }): WebhookInputCheck {
  const invalidFields: string[] = [];
  if (!isHttpsUrl(input.url)) invalidFields.push('url');
  if (input.events.length === 0 || !input.events.every((name) => allowedEvents.has(name))) {
    invalidFields.push('events');
  }
  if (invalidFields.length > 0) return { ok: false, invalidFields };
  return {
    ok: true,
    // Order of first appearance, without repeats: subscribing twice to an event means once.
    value: { url: input.url, events: [...new Set(input.events)] as WebhookEventName[] },
  };
}

function isHttpsUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  // Credentials in the URL would travel with every delivery and show up in logs.
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
}
