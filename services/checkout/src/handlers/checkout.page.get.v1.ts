import type { CheckoutPage } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { findActiveCheckout } from '../persistence';

/** What the hosted page at `/c/{slug}` shows; only active checkouts are reachable. */
export function handleGetCheckoutPage(dataSource: DataSource) {
  return async (query: { slug: string }): Promise<CheckoutPage> => {
    const found = await findActiveCheckout(dataSource.manager, query.slug);
    if (!found) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    const { checkout, product } = found;
    return {
      slug: checkout.slug,
      business_id: checkout.businessId,
      // Products registered without the merchant's display name show their own name instead.
      business_name: product.businessName ?? product.name,
      product_name: product.name,
      product_description: product.description,
      title: checkout.title ?? product.name,
      price_centavos: product.priceCentavos,
      cancel_url: checkout.cancelUrl,
      interval: product.interval,
    };
  };
}
