import { createServer } from 'node:http';
import { Gateway, isGatewayError, verifyWebhook } from '@gateway/sdk';
const gateway = new Gateway({ apiKey: process.env.GATEWAY_API_KEY!, baseUrl: process.env.GATEWAY_URL });
const orderId = `order-${Date.now()}`; // your order's own id: the payment's idempotency key
const order = { payment_method: 'pix', amount: 12345 } as const; // R$ 123,45 by PIX
const payment = await gateway.payments.create(order, { idempotencyKey: orderId }); // retried: charged once
if ('pix' in payment) console.log('show the buyer:', payment.pix.copia_e_cola);
const missing = await gateway.payments.get('pay_000000000000000000000000').catch((err: unknown) => err);
console.log('typed errors:', isGatewayError(missing, 'NOT_FOUND')); // true: errors carry the contract's code
// Webhooks: check the raw bytes (both signature schemes, 5-minute tolerance), then act once per event id.
const port = Number(process.env.SHOP_PORT ?? 4000);
createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const event = verifyWebhook(Buffer.concat(chunks), req.headers, process.env.WEBHOOK_SECRET!);
    if (event.type === 'payment.confirmed') console.log('paid:', event.data.payment_id); // dedupe on event.id
    res.writeHead(204).end();
  } catch {
    res.writeHead(400).end(); // not signed with this secret, or replayed
  }
}).listen(port, () => console.log(`webhooks: http://localhost:${port}/hook`));
