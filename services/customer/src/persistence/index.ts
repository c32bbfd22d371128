import { CustomerEntity } from './customer.entity';
import { Customers1732300001000 } from './migrations/1732300001000-customers';

export { CustomerEntity };

export const customerDatabase = {
  schema: 'customer',
  entities: [CustomerEntity],
  migrations: [Customers1732300001000],
};
