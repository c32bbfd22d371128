/**
 * The naive yardstick of `pnpm bench:stack`, the monolith a platform team would write first: one express process over
 * one pg pool, doing a PIX create the obvious way (API key lookup, joi validation, fee, BR Code, `qrcode.toDataURL` with
 * its defaults, one INSERT) and a GET the obvious way (one SELECT scoped to the key's business). No broker, no outbox,
 * no PSP: what it saves is exactly what our architecture must pay for. `same-work-server.ts` is the other yardstick,
 * the same shape doing the same real work as the stack (the cob at the PSP, idempotency key and outbox row).
 *
 * Run by the bench as its own process: `BASELINE_PORT`, `BASELINE_DATABASE_URL`. It creates its tables if missing.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import QRCode from 'qrcode';
import { staticBrCode } from './br-code';
import { checkedCreate, feeOf, listIndexSql, servePaymentReads } from './yardstick-common';

const port = Number(process.env.BASELINE_PORT ?? 4900);
// Idle connections are closed after a second: PostgreSQL is shared with the stack under test (and, on a shared machine,
// with other runs), and a yardstick idling through the stack's phases should hold none of its max_connections.
const pool = new pg.Pool({ connectionString: process.env.BASELINE_DATABASE_URL, idleTimeoutMillis: 1000 });

const baselineSchemaSql = `
  CREATE TABLE IF NOT EXISTS baseline_businesses (
    id uuid PRIMARY KEY, name text NOT NULL, api_key_hash text NOT NULL UNIQUE,
    fee_percent_bps integer NOT NULL, fee_fixed_centavos integer NOT NULL);
  CREATE TABLE IF NOT EXISTS baseline_payments (
    id text PRIMARY KEY, business_id uuid NOT NULL REFERENCES baseline_businesses (id), method text NOT NULL,
    status text NOT NULL, amount_centavos bigint NOT NULL, fee_centavos bigint NOT NULL, br_code text NOT NULL,
    qr_code text NOT NULL, metadata text, expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  ${listIndexSql}`;

const app = express();
app.use(express.json({ limit: '64kb' }));

app.post('/v1/payments', async (req, res, next) => {
  try {
    const checked = await checkedCreate(pool, req, res);
    if (!checked) return;
    const { business, value } = checked;
    const amount = value.amount;
    const fee = feeOf(business, amount);
    const id = `pay_${randomUUID().replace(/-/g, '')}`;
    const code = staticBrCode(business.name, amount, id.slice(4, 29));
    const qr = await QRCode.toDataURL(code);
    const expiresAt = new Date(Date.now() + 3_600_000);
    await pool.query(
      `INSERT INTO baseline_payments (id, business_id, method, status, amount_centavos, fee_centavos, br_code, qr_code,
         metadata, expires_at) VALUES ($1, $2, 'pix', 'processing', $3, $4, $5, $6, $7, $8)`,
      [id, business.id, amount, fee, code, qr, value.metadata ?? null, expiresAt],
    );
    res.status(201).json({
      payment_id: id,
      amount: amount / 100,
      status: 'processing',
      fee_brl: fee / 100,
      net_amount_brl: (amount - fee) / 100,
      expires_at: expiresAt.toISOString(),
      pix: { qr_code: qr, copia_e_cola: code },
    });
  } catch (err) {
    next(err);
  }
});

servePaymentReads(app, pool, (row) => row.id.slice(4, 29));

async function main(): Promise<void> {
  await pool.query(baselineSchemaSql);
  const server = app.listen(port, '127.0.0.1', () => process.stdout.write(`baseline listening on ${port}\n`));
  process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
