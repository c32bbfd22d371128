// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-bodies.ts): do not
// edit. The body fields of each operation of the public API that takes one, by its operation id, in the order of
// the document's schema: whether each is required, its JSON type, and its values when it has a fixed set.

export const generatedBodies = {
  createPayment: {
    payment_method: { required: true, type: 'string', values: ['pix', 'crypto'] },
    amount: { required: true, type: 'integer' },
    currency: { required: false, type: 'string', values: ['BRL', 'brl'] },
    metadata: { required: false, type: 'string' },
    customer_id: { required: false, type: 'string' },
    crypto: { required: false, type: 'object' },
  },
  updatePayment: {
    amount: { required: false, type: 'integer' },
    metadata: { required: false, type: 'string' },
  },
  createRefund: {
    amount: { required: false, type: 'integer' },
    reason: { required: false, type: 'string' },
  },
  simulatePayment: {
    outcome: { required: true, type: 'string', values: ['paid', 'failed', 'expired'] },
    amount: { required: false, type: 'integer' },
  },
  createCheckout: {
    product_id: { required: true, type: 'string' },
    return_url: { required: true, type: 'string' },
    cancel_url: { required: true, type: 'string' },
    title: { required: false, type: 'string' },
    slug: { required: false, type: 'string' },
    metadata: { required: false, type: 'string' },
  },
  createCustomer: {
    email: { required: false, type: 'string' },
    phone_number: { required: false, type: 'string' },
    document_number: { required: false, type: 'string' },
    metadata: { required: false, type: 'string' },
  },
  createWebhook: {
    url: { required: true, type: 'string' },
    events: { required: true, type: 'array' },
  },
} as const;
