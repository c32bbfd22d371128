import { newPublicId, type Customer } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import type { CustomerInput } from '../domain/customer-input';
import { toRecord } from '../domain/customer-record';
import { saveCustomer } from '../persistence';

/** A validated customer of one business, as the command gave it. */
export interface NewCustomer {
  businessId: string;
  ip: string | null;
  input: CustomerInput;
}

/** Stores a customer under a fresh id; a redelivered command returns the same one. */
export function createCustomer(
  uow: UnitOfWork,
  { businessId, ip, input }: NewCustomer,
  context: MessageContext,
): Promise<Customer> {
  return uow.once(context, async (tx) =>
    toRecord(
      await saveCustomer(tx.manager, {
        id: newPublicId('cust'),
        businessId,
        name: input.name,
        email: input.email,
        phoneNumber: input.phone_number,
        documentNumber: input.document_number,
        ip,
        metadata: input.metadata,
      }),
    ),
  );
}
