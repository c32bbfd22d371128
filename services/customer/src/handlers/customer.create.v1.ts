import { newPublicId, type CreateCustomer, type Customer } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { parseCustomerInput } from '../domain/customer-input';
import { toRecord } from '../domain/customer-record';
import { CustomerEntity } from '../persistence';

/** Validates (CPF/CNPJ check digits, E.164, email) and stores a customer; a redelivered command returns the same one. */
export function handleCreateCustomer(uow: UnitOfWork) {
  return async (command: CreateCustomer, context: MessageContext): Promise<Customer> => {
    const input = parseCustomerInput({ ...command });
    if (!input.ok) {
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${input.invalidFields.join(', ')}.`);
    }
    return uow.once(context, async (tx) => {
      const entity = tx.manager.create(CustomerEntity, {
        id: newPublicId('cust'),
        businessId: command.business_id,
        email: input.value.email,
        phoneNumber: input.value.phone_number,
        documentNumber: input.value.document_number,
        ip: command.ip,
        metadata: input.value.metadata,
      });
      return toRecord(await tx.manager.save(entity));
    });
  };
}
