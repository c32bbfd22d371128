import type { MessageContext } from '@gateway/messaging';
import {
  sendTestWebhook,
  type TestSendDependencies,
  type TestSendResult,
} from '../application/send-test-webhook';

/** `webhook.test.v1`: what the endpoint answered to one signed `webhook.test` event. */
export function handleSendTestWebhook(deps: TestSendDependencies) {
  return (
    command: { business_id: string; webhook_id: string },
    context: MessageContext,
  ): Promise<TestSendResult> => sendTestWebhook(deps, command, context);
}
