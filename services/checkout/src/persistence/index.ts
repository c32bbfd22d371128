import { CheckoutEntity } from './checkout.entity';
import { ProductEntity } from './product.entity';
import { SessionEntity } from './session.entity';
import { Checkouts1732300004000 } from './migrations/1732300004000-checkouts';
import { CheckoutPages1732400070000 } from './migrations/1732400070000-checkout-pages';
import { SessionCancelled1732400140000 } from './migrations/1732400140000-session-cancelled';
import { ProductStatus1764402300000 } from './migrations/1764402300000-product-status';
import { RecurringProducts1764403201000 } from './migrations/1764403201000-recurring-products';

export { CheckoutEntity, ProductEntity, SessionEntity };
export * from './checkout-store';
export * from './product-store';
export * from './session-store';

export const checkoutDatabase = {
  schema: 'checkout',
  entities: [ProductEntity, CheckoutEntity, SessionEntity],
  migrations: [
    Checkouts1732300004000,
    CheckoutPages1732400070000,
    SessionCancelled1732400140000,
    ProductStatus1764402300000,
    RecurringProducts1764403201000,
  ],
};
