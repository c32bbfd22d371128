import type { CreateCustomer, Customer } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { createCustomer } from '../application/create-customer';
import { parseCustomerInput } from '../domain/customer-input';

/** Validates (CPF/CNPJ check digits, E.164, email) and stores a customer; a redelivered command returns the same one. */
export function handleCreateCustomer(uow: UnitOfWork) {
  return async (command: CreateCustomer, context: MessageContext): Promise<Customer> => {
    const input = parseCustomerInput({ ...command });
    if (!input.ok) {
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${input.invalidFields.join(', ')}.`);
    }
    return createCustomer(
      uow,
      { businessId: command.business_id, ip: command.ip, input: input.value },
      context,
    );
  };
}
