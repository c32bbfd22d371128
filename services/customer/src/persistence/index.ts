import { CustomerEntity } from './customer.entity';
import { Customers1732300001000 } from './migrations/1732300001000-customers';
import { CustomerPages1732400050000 } from './migrations/1732400050000-customer-pages';
import { CustomerEmailSearch1764402310000 } from './migrations/1764402310000-customer-email-search';
import { CustomerName1764402800000 } from './migrations/1764402800000-customer-name';

export { CustomerEntity };
export * from './customer-store';

export const customerDatabase = {
  schema: 'customer',
  entities: [CustomerEntity],
  migrations: [
    Customers1732300001000,
    CustomerPages1732400050000,
    CustomerEmailSearch1764402310000,
    CustomerName1764402800000,
  ],
};
