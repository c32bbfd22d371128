import type { Environment } from '../../domain/api-key';
import { exampleId, type OperationSpec, type Tag } from '../operation';
import { adjustmentOperations } from '../routes/adjustments';
import { adminOperations, operatorTag } from '../routes/admin';
import { apiReferenceOperations, referenceTag } from '../routes/api-reference';
import { balanceOperations, balanceTag } from '../routes/balance';
import { checkoutOperations, checkoutsTag } from '../routes/checkouts';
import { customerOperations, customersTag } from '../routes/customers';
import { disputeOperations, disputesTag } from '../routes/disputes';
import { eventOperations, eventsTag } from '../routes/events';
import { healthOperations, operationsTag } from '../routes/health';
import { hostedCheckoutOperations, hostedCheckoutTag } from '../routes/hosted-checkout';
import { paymentOperations, paymentsTag, sandboxOperations, sandboxTag } from '../routes/payments';
import { payoutOperations, payoutsTag } from '../routes/payouts';
import { productOperations } from '../routes/products';
import { reconciliationOperations } from '../routes/reconciliations';
import { refundOperations, refundsTag } from '../routes/refunds';
import { suspenseOperations } from '../routes/suspense';
import {
  subscriptionOperations,
  subscriptionSandboxOperations,
  subscriptionsTag,
} from '../routes/subscriptions';
import { webhookOperations, webhooksTag } from '../routes/webhooks';

export { exampleId };
export type { Answer, Area, HttpMethod, OperationSpec, RequestExamples, Tag } from '../operation';

/**
 * Every route the gateway serves: the table, one entry per operation, each declared once next to its handler in its
 * route family's module (routes/*.ts). app.ts mounts the table, each entry behind its area's stack (http/mount.ts), and
 * the OpenAPI document is computed from the same entries: a new family is its module and one line here (and one in
 * `tags` for a tag of its own).
 */
export const operations: OperationSpec[] = [
  ...paymentOperations,
  ...refundOperations,
  ...disputeOperations,
  ...subscriptionOperations,
  ...sandboxOperations,
  ...subscriptionSandboxOperations,
  ...checkoutOperations,
  ...productOperations,
  ...customerOperations,
  ...webhookOperations,
  ...eventOperations,
  ...balanceOperations,
  ...payoutOperations,
  ...adminOperations,
  ...suspenseOperations,
  ...reconciliationOperations,
  ...adjustmentOperations,
  ...hostedCheckoutOperations,
  ...healthOperations,
  ...apiReferenceOperations,
];

/** The document's tags, in the order /docs shows them, each declared by its family next to its entries. */
export const tags: Tag[] = [
  paymentsTag,
  refundsTag,
  disputesTag,
  subscriptionsTag,
  checkoutsTag,
  customersTag,
  webhooksTag,
  eventsTag,
  balanceTag,
  payoutsTag,
  sandboxTag,
  operatorTag,
  hostedCheckoutTag,
  operationsTag,
  referenceTag,
];

/** The routes a deployment serves (app.ts mounts them, the document lists them): the sandbox only outside production. */
export function servedOperations(environment: Environment): OperationSpec[] {
  return operations.filter((op) => op.area !== 'sandbox' || environment !== 'production');
}
