import type { Environment } from '../../domain/api-key';
import { exampleId, type OperationSpec } from '../operation';
import { adminOperations } from '../routes/admin';
import { apiReferenceOperations } from '../routes/api-reference';
import { checkoutOperations } from '../routes/checkouts';
import { customerOperations } from '../routes/customers';
import { eventOperations } from '../routes/events';
import { healthOperations } from '../routes/health';
import { hostedCheckoutOperations } from '../routes/hosted-checkout';
import { paymentOperations, sandboxOperations } from '../routes/payments';
import { refundOperations } from '../routes/refunds';
import { webhookOperations } from '../routes/webhooks';

export { exampleId };
export type { Answer, Area, HttpMethod, OperationSpec, RequestExamples } from '../operation';

/**
 * Every route the gateway serves: the table, one entry per operation, each declared once next to its handler in its
 * route family's module (routes/*.ts). app.ts mounts the table, each entry behind its area's stack (http/mount.ts), and
 * the OpenAPI document is computed from the same entries: a new family is its module and one line here.
 */
export const operations: OperationSpec[] = [
  ...paymentOperations,
  ...refundOperations,
  ...sandboxOperations,
  ...checkoutOperations,
  ...customerOperations,
  ...webhookOperations,
  ...eventOperations,
  ...adminOperations,
  ...hostedCheckoutOperations,
  ...healthOperations,
  ...apiReferenceOperations,
];

/** The routes a deployment serves (app.ts mounts them, the document lists them): the sandbox only outside production. */
export function servedOperations(environment: Environment): OperationSpec[] {
  return operations.filter((op) => op.area !== 'sandbox' || environment !== 'production');
}
