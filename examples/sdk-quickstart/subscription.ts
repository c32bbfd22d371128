import { Gateway } from '@gateway/sdk';
const gateway = new Gateway({ apiKey: process.env.GATEWAY_API_KEY!, baseUrl: process.env.GATEWAY_URL });
const day = (date: Date) => date.toLocaleDateString('en-CA', { timeZone: 'America/Sao_Paulo' }); // YYYY-MM-DD
const today = day(new Date());
const customer = await gateway.customers.create({ name: 'Joana Pereira', document_number: '529.982.247-25' });
// R$ 99,90 a month from today; one QR code pays cycle 1 and authorizes the rest (Pix Automático, journey 3)
const subscription = await gateway.subscriptions.create(
  {
    customer_id: customer.customer_id,
    amount: 9990,
    interval: 'monthly',
    start_date: today,
    authorization: { journey: 'qr_with_first_payment' },
  },
  { idempotencyKey: `gym-${customer.customer_id}` },
);
console.log('show the payer:', subscription.authorization.copia_e_cola);
const id = subscription.subscription_id;
await gateway.sandbox.simulateSubscription(id, { outcome: 'authorize' }); // the sandbox payer reads the QR code
// A year on the subscription's own clock (answered at once, moved in the background): cycles 2 to 12 debited;
// a week past cycle 12's due date, since a debit due on a weekend or a bank holiday is made the next business day
const yearOn = new Date(`${today}T12:00:00Z`);
yearOn.setUTCMonth(yearOn.getUTCMonth() + 11);
yearOn.setUTCDate(yearOn.getUTCDate() + 7);
await gateway.sandbox.advanceSubscription(id, { to: yearOn.toISOString().slice(0, 10) });
for (;;) {
  const paid = await gateway.payments.list({ subscription_id: id, status: 'paid', limit: 100 });
  if (paid.data.length === 12) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}
console.log('12 paid cycles of', id, (await gateway.subscriptions.get(id)).status);
await gateway.subscriptions.cancel(id); // subscription.cancelled, by the merchant
