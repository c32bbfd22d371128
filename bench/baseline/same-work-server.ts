/**
 * The same-work yardstick of `pnpm bench:stack`: the one-process shape of the naive server (`server.ts`: express, one
 * pg pool), doing the real work a PIX create of the stack does, as any real monolith must:
 *
 * - API key lookup, joi validation, fee;
 * - the cob registered at the PSP (the stack's own PSP simulator): an OAuth2 client-credentials token, cached and
 *   shared, then `PUT {prefix}/cob/{txid}` of API Pix v2, outside any transaction, over a keep-alive pool;
 * - the BR Code of the cob: the PSP's `pixCopiaECola` when its CRC holds and it points at the cob's location, else a
 *   dynamic one built from the location; its QR with `qrcode.toDataURL` (the naive server's encoder);
 * - the payment with its idempotency key (the `Idempotency-Key` header, else one per request) and an outbox row for
 *   its `payment.created` event, in one transaction. A repeated key answers the payment it made.
 *
 * A GET is the naive server's: one SELECT scoped to the key's business.
 *
 * Run by the bench as its own process: `BASELINE_PORT`, `BASELINE_DATABASE_URL`, `PSP_URL` (with the API Pix prefix,
 * e.g. `http://127.0.0.1:4010/v2`), `PSP_TOKEN_URL`, `PSP_CLIENT_ID`, `PSP_CLIENT_SECRET`, `PSP_PIX_KEY`,
 * `MERCHANT_CITY`. It creates its tables if missing.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import QRCode from 'qrcode';
import { Agent, request } from 'undici';
import { dynamicBrCode, pspCodeHolds } from './br-code';
import { checkedCreate, feeOf, listIndexSql, servePaymentReads } from './yardstick-common';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const port = Number(process.env.BASELINE_PORT ?? 4901);
// Idle connections are closed after a second: PostgreSQL is shared with the stack under test (and, on a shared machine,
// with other runs), and a yardstick idling through the stack's phases should hold none of its max_connections.
const pool = new pg.Pool({ connectionString: process.env.BASELINE_DATABASE_URL, idleTimeoutMillis: 1000 });
const psp = {
  url: env('PSP_URL'),
  tokenUrl: env('PSP_TOKEN_URL'),
  basic: Buffer.from(`${env('PSP_CLIENT_ID')}:${env('PSP_CLIENT_SECRET')}`).toString('base64'),
  pixKey: env('PSP_PIX_KEY'),
  city: process.env.MERCHANT_CITY ?? 'SAO PAULO',
};
const pspAgent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const PSP_TIMEOUT_MS = 10_000;
const EXPIRES_IN_SECONDS = 3600;

const schemaSql = `
  CREATE TABLE IF NOT EXISTS baseline_businesses (
    id uuid PRIMARY KEY, name text NOT NULL, api_key_hash text NOT NULL UNIQUE,
    fee_percent_bps integer NOT NULL, fee_fixed_centavos integer NOT NULL);
  CREATE TABLE IF NOT EXISTS baseline_payments (
    id text PRIMARY KEY, business_id uuid NOT NULL REFERENCES baseline_businesses (id),
    idempotency_key text NOT NULL, method text NOT NULL, status text NOT NULL, amount_centavos bigint NOT NULL,
    fee_centavos bigint NOT NULL, txid text NOT NULL UNIQUE, location text NOT NULL, br_code text NOT NULL,
    qr_code text NOT NULL, metadata text, expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (business_id, idempotency_key));
  ${listIndexSql}
  CREATE TABLE IF NOT EXISTS baseline_outbox (
    id uuid PRIMARY KEY, aggregate_id text NOT NULL, type text NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz);`;

/** The PSP's OAuth2 client-credentials token, cached until shortly before it expires and shared by concurrent calls. */
let token: { value: string; refreshAt: number } | undefined;
let tokenInFlight: Promise<string> | undefined;

function pspToken(): Promise<string> {
  if (token && Date.now() < token.refreshAt) return Promise.resolve(token.value);
  tokenInFlight ??= (async () => {
    const reply = await request(psp.tokenUrl, {
      method: 'POST',
      dispatcher: pspAgent,
      headers: {
        authorization: `Basic ${psp.basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials&scope=cob.write%20cob.read',
      signal: AbortSignal.timeout(PSP_TIMEOUT_MS),
    });
    const body = (await reply.body.json()) as { access_token?: string; expires_in?: number };
    if (reply.statusCode !== 200 || !body.access_token) throw new Error(`PSP token: ${reply.statusCode}`);
    const lifetime = body.expires_in ?? 300;
    token = {
      value: body.access_token,
      refreshAt: Date.now() + (lifetime - Math.min(60, lifetime / 10)) * 1000,
    };
    return body.access_token;
  })().finally(() => {
    tokenInFlight = undefined;
  });
  return tokenInFlight;
}

interface Cob {
  txid: string;
  calendario: { criacao: string; expiracao: number };
  location?: string;
  loc?: { location: string };
  pixCopiaECola?: string;
}

/** `PUT /cob/{txid}` (API Pix v2); a 401 (the token dropped early) is tried once more with a fresh token. */
async function putCob(txid: string, amountCentavos: number): Promise<Cob> {
  const body = JSON.stringify({
    calendario: { expiracao: EXPIRES_IN_SECONDS },
    valor: { original: (amountCentavos / 100).toFixed(2) },
    chave: psp.pixKey,
  });
  for (let attempt = 1; ; attempt++) {
    const reply = await request(`${psp.url}/cob/${txid}`, {
      method: 'PUT',
      dispatcher: pspAgent,
      headers: {
        authorization: `Bearer ${await pspToken()}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
      signal: AbortSignal.timeout(PSP_TIMEOUT_MS),
    });
    const answer = (await reply.body.json()) as Cob;
    if (reply.statusCode === 401 && attempt === 1) {
      token = undefined;
      continue;
    }
    if (reply.statusCode !== 200 && reply.statusCode !== 201)
      throw new Error(`PSP PUT /cob: ${reply.statusCode} ${JSON.stringify(answer)}`);
    return answer;
  }
}

/** The txid of a business's idempotency key: a repeated request meets its cob at the PSP, never a second one. */
function txidOf(businessId: string, idempotencyKey: string | undefined): string {
  if (idempotencyKey === undefined) return randomBytes(16).toString('hex');
  return createHash('sha256').update(`${businessId}:${idempotencyKey}`).digest('hex').slice(0, 32);
}

interface PaymentRow {
  id: string;
  status: string;
  amount_centavos: string;
  fee_centavos: string;
  br_code: string;
  qr_code: string;
  expires_at: Date;
}

function createdAnswer(row: PaymentRow) {
  const amount = Number(row.amount_centavos);
  const fee = Number(row.fee_centavos);
  return {
    payment_id: row.id,
    amount: amount / 100,
    status: row.status,
    fee_brl: fee / 100,
    net_amount_brl: (amount - fee) / 100,
    expires_at: row.expires_at.toISOString(),
    pix: { qr_code: row.qr_code, copia_e_cola: row.br_code },
  };
}

async function paymentOfKey(businessId: string, idempotencyKey: string): Promise<PaymentRow | undefined> {
  const { rows } = await pool.query<PaymentRow>(
    `SELECT id, status, amount_centavos, fee_centavos, br_code, qr_code, expires_at FROM baseline_payments
     WHERE business_id = $1 AND idempotency_key = $2`,
    [businessId, idempotencyKey],
  );
  return rows[0];
}

const app = express();
app.use(express.json({ limit: '64kb' }));

app.post('/v1/payments', async (req, res, next) => {
  try {
    const checked = await checkedCreate(pool, req, res);
    if (!checked) return;
    const { business, value } = checked;
    const given = req.header('idempotency-key');
    if (given !== undefined) {
      const earlier = await paymentOfKey(business.id, given);
      if (earlier)
        return void res.status(201).set('idempotent-replayed', 'true').json(createdAnswer(earlier));
    }
    const idempotencyKey = given ?? randomUUID();
    const amount = value.amount;
    const fee = feeOf(business, amount);
    const id = `pay_${randomUUID().replace(/-/g, '')}`;
    const cob = await putCob(txidOf(business.id, given), amount);
    const location = cob.loc?.location ?? cob.location;
    if (!location) throw new Error(`cob ${cob.txid} has no location`);
    const code =
      cob.pixCopiaECola !== undefined && pspCodeHolds(cob.pixCopiaECola, location)
        ? cob.pixCopiaECola
        : dynamicBrCode(location, business.name, psp.city);
    const qr = await QRCode.toDataURL(code);
    const expiresAt = new Date(Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000);
    const client = await pool.connect();
    let row: PaymentRow | undefined;
    try {
      await client.query('BEGIN');
      const inserted = await client.query<PaymentRow>(
        `INSERT INTO baseline_payments (id, business_id, idempotency_key, method, status, amount_centavos, fee_centavos,
           txid, location, br_code, qr_code, metadata, expires_at)
         VALUES ($1, $2, $3, 'pix', 'processing', $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (business_id, idempotency_key) DO NOTHING
         RETURNING id, status, amount_centavos, fee_centavos, br_code, qr_code, expires_at`,
        [
          id,
          business.id,
          idempotencyKey,
          amount,
          fee,
          cob.txid,
          location,
          code,
          qr,
          value.metadata ?? null,
          expiresAt,
        ],
      );
      row = inserted.rows[0];
      if (row)
        await client.query(
          `INSERT INTO baseline_outbox (id, aggregate_id, type, payload) VALUES ($1, $2, 'payment.created', $3)`,
          [
            randomUUID(),
            id,
            JSON.stringify({
              payment_id: id,
              business_id: business.id,
              method: 'pix',
              amount_centavos: amount,
              fee_centavos: fee,
              txid: cob.txid,
              expires_at: expiresAt.toISOString(),
            }),
          ],
        );
      await client.query(row ? 'COMMIT' : 'ROLLBACK');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    // A concurrent request with the same key stored its payment first: that one is the answer.
    row ??= await paymentOfKey(business.id, idempotencyKey);
    if (!row) throw new Error('the payment of a repeated idempotency key is gone');
    res.status(201).json(createdAnswer(row));
  } catch (err) {
    next(err);
  }
});

servePaymentReads(app, pool, (row) => String(row.txid));

async function main(): Promise<void> {
  await pool.query(schemaSql);
  await pspToken();
  const server = app.listen(port, '127.0.0.1', () =>
    process.stdout.write(`same-work server listening on ${port}\n`),
  );
  process.once('SIGTERM', () =>
    server.close(() => void Promise.all([pool.end(), pspAgent.close()]).then(() => process.exit(0))),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
