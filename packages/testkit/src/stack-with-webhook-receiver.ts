import { startStack, type RunningStack } from './stack';
import { stackClient, type FeeRule, type PaymentMethodName, type StackClient } from './stack-client';
import { startedForTheseTests, createTestPki } from '@gateway/testkit-core';
import { WebhookReceiver } from './webhook-receiver';

/** A started stack whose webhook dispatcher trusts the test PKI, with a WebhookReceiver served under that PKI. */
export interface StackWithWebhookReceiver {
  stack: RunningStack;
  client: StackClient;
  receiver: WebhookReceiver;
  /**
   * Stops the stack, then the receiver, and removes the PKI; prints the stack's logs first when E2E_LOGS is set
   * (for an end-to-end test's afterAll).
   */
  stopAll(): Promise<void>;
}

/**
 * The whole stack (`startStack`, with `extraEnv` over NODE_EXTRA_CA_CERTS) and a webhook receiver it can deliver to
 * over HTTPS: what an end-to-end test of signed webhooks starts with. If the stack does not start, the receiver is
 * stopped and the PKI removed before the error is thrown.
 */
export async function startStackWithWebhookReceiver(
  extraEnv: Record<string, string> = {},
): Promise<StackWithWebhookReceiver> {
  const pki = createTestPki();
  const cleanUp = async (receiver?: WebhookReceiver) => {
    await receiver?.stop();
    pki.remove();
  };
  const receiver = await WebhookReceiver.start(pki.server).catch(async (err: unknown) => {
    await cleanUp();
    throw err;
  });
  const stack = await startStack({ NODE_EXTRA_CA_CERTS: pki.caPath, ...extraEnv }).catch(
    async (err: unknown) => {
      await cleanUp(receiver);
      throw err;
    },
  );
  return {
    stack,
    client: stackClient(stack),
    receiver,
    async stopAll() {
      // eslint-disable-next-line no-console -- E2E_LOGS asks for every process's output after the run
      if (process.env.E2E_LOGS) console.log(stack.logs.join(''));
      await stack.stop();
      await cleanUp(receiver);
    },
  };
}

/** How long starting the whole stack may take: every service, the PSP simulator and the local chain. */
export const STACK_START_TIMEOUT_MS = 150_000;

/** The merchant an end-to-end test acts as. */
export interface MerchantSetup {
  /** Its business's name. */
  name: string;
  feeRules?: Partial<Record<PaymentMethodName, FeeRule>>;
  /** The events its webhook, at the receiver's `/hooks`, is registered for. */
  webhookEvents: string[];
  /**
   * Variables over the stack's (`startStackWithWebhookReceiver`'s `extraEnv`); a function is called as the stack
   * starts, for variables naming what the test's own hooks started first (an OTLP receiver, a proxy).
   */
  extraEnv?: Record<string, string> | (() => Record<string, string>);
}

/** A started stack with a webhook receiver, and the merchant its tests act as. */
export interface StackWithMerchant extends StackWithWebhookReceiver {
  /** The merchant's API key. */
  apiKey: string;
  /** What the merchant's webhook deliveries are signed with. */
  webhookSecret: string;
  close(): Promise<void>;
}

/**
 * The whole stack with a webhook receiver (`startStackWithWebhookReceiver`) and a merchant created on it as `merchant`
 * says, started before the enclosing describe's tests and stopped after them; read it inside tests and hooks.
 */
export function stackWithMerchantForTheseTests(merchant: MerchantSetup): StackWithMerchant {
  return startedForTheseTests(async () => {
    const { extraEnv } = merchant;
    const started = await startStackWithWebhookReceiver(
      typeof extraEnv === 'function' ? extraEnv() : extraEnv,
    );
    try {
      const { apiKey } = await started.client.createBusiness(merchant.name, merchant.feeRules);
      const webhook = await started.client.registerWebhook(
        apiKey,
        started.receiver.url('/hooks'),
        merchant.webhookEvents,
      );
      return { ...started, apiKey, webhookSecret: webhook.secret as string, close: started.stopAll };
    } catch (err) {
      await started.stopAll();
      throw err;
    }
  }, STACK_START_TIMEOUT_MS);
}
