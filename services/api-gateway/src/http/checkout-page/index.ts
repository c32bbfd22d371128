export { renderCheckoutPage, type CheckoutPageView, type Stablecoin } from './checkout-page';
export { renderNotFoundPage, renderUnavailablePage } from './message-pages';
export { renderErrorMessage } from './error-messages';
export { escapeHtml } from './escape-html';
export { formatBrl } from './format-brl';
export {
  checkoutAssets,
  CHECKOUT_CONTENT_SECURITY_POLICY,
  type CheckoutAssetName,
  type StaticAsset,
} from './assets';
