import type { Customer } from '@gateway/contracts';

/** A customer as this service stores it (the entity has this shape). */
export interface StoredCustomer {
  id: string;
  businessId: string;
  name: string | null;
  email: string | null;
  phoneNumber: string | null;
  documentNumber: string | null;
  ip: string | null;
  metadata: string | null;
  createdAt: Date;
}

export function toRecord(customer: StoredCustomer): Customer {
  return {
    customer_id: customer.id,
    business_id: customer.businessId,
    name: customer.name,
    email: customer.email,
    phone_number: customer.phoneNumber,
    document_number: customer.documentNumber,
    ip: customer.ip,
    metadata: customer.metadata,
    created_at: customer.createdAt.toISOString(),
  };
}
