import { hostileStackForThisFile } from './support/hostile-input';
import { anyRoute } from './hostile-input/http';
import { booksRoutes } from './hostile-input/balance';
import { checkoutRoutes } from './hostile-input/checkouts';
import { operatorRoutes } from './hostile-input/admin';
import { paymentRoutes } from './hostile-input/payments';
import { payoutRoutes } from './hostile-input/payouts';
import { webhookRoutes } from './hostile-input/webhooks';

/**
 * Hostile input through the whole stack, one route family after another on one stack (a stack's start is most of an
 * end-to-end file's time). Any route last: its burst of hostile requests comes after every family's, and the file's
 * closing checks (no message failed, no error logged, nothing parked) cover them all.
 */
describe('hostile input through the whole stack', () => {
  const h = hostileStackForThisFile();

  describe('payments', () => paymentRoutes(h));
  describe('checkouts and customers', () => checkoutRoutes(h));
  describe('webhooks and events', () => webhookRoutes(h));
  describe('payouts', () => payoutRoutes(h));
  describe('the books', () => booksRoutes(h));
  describe("the operator's routes", () => operatorRoutes(h));
  describe('any route', () => anyRoute(h));
});
