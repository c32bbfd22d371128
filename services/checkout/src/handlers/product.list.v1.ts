import type { DataSource } from 'typeorm';
import { pageRequest, type ListProducts, type Page, type Product } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toProduct } from '../domain/records';
import { findProductPage } from '../persistence';

/** The calling business's products, newest first, a page at a time. */
export function handleListProducts(dataSource: DataSource) {
  return async (query: ListProducts): Promise<Page<Product>> => {
    const page = await findProductPage(dataSource.manager, query.business_id, pageRequest(query));
    return pageReply(page, toProduct);
  };
}
