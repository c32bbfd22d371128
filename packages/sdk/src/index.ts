export { Gateway, type GatewayOptions } from './client';
export { GatewayConnectionError, GatewayError, errorCodes, isGatewayError, type ErrorCode } from './errors';
export { PagedList } from './pagination';
export { routes, type HttpMethod, type Route } from './routes';
export {
  WebhookVerificationError,
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './webhooks';
export type * from './types';
