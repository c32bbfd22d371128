/**
 * What the two one-process yardsticks (server.ts, the naive one; same-work-server.ts) share: the create body they
 * accept, the business an API key names, and the read of a payment, the same in both.
 */
import { createHash } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import Joi from 'joi';
import type pg from 'pg';

export const createBody = Joi.object({
  payment_method: Joi.string().valid('pix').required(),
  amount: Joi.number().integer().min(100).max(10_000_000_000).required(),
  currency: Joi.string().valid('BRL', 'brl').default('BRL'),
  metadata: Joi.string().max(4000),
});

export interface Business {
  id: string;
  name: string;
  fee_percent_bps: number;
  fee_fixed_centavos: number;
}

export async function businessOf(pool: pg.Pool, apiKey: string | undefined): Promise<Business | undefined> {
  if (!apiKey) return undefined;
  const hash = createHash('sha256').update(apiKey).digest('hex');
  const { rows } = await pool.query<Business>(
    'SELECT id, name, fee_percent_bps, fee_fixed_centavos FROM baseline_businesses WHERE api_key_hash = $1',
    [hash],
  );
  return rows[0];
}

/** The business's fee on `amount` centavos, by its percent and fixed rule. */
export const feeOf = (business: Business, amount: number): number =>
  Math.round((amount * business.fee_percent_bps) / 10_000) + business.fee_fixed_centavos;

/** The business and the checked body of a create; undefined once it has answered 401 or 422 itself. */
export async function checkedCreate(
  pool: pg.Pool,
  req: Request,
  res: Response,
): Promise<{ business: Business; value: { amount: number; metadata?: string } } | undefined> {
  const business = await businessOf(pool, req.header('x-api-key'));
  if (!business) return void res.status(401).json({ error: { code: 'UNAUTHORIZED' } });
  const { value, error } = createBody.validate(req.body);
  if (error) return void res.status(422).json({ error: { code: 'MISSING_FIELDS', message: error.message } });
  return { business, value };
}

/** The index a list of a business's payments, newest first, reads (both servers' schemas). */
export const listIndexSql =
  'CREATE INDEX IF NOT EXISTS baseline_payments_listed ON baseline_payments (business_id, created_at DESC, id DESC);';

/**
 * GET /v1/payments/:id, one select, and GET /v1/payments (the business's newest first, `limit` of them, 10 unless
 * given), one select; `externalIdOf` says what the server stored as the charge's id.
 */
export function servePaymentReads(
  app: Express,
  pool: pg.Pool,
  externalIdOf: (row: { id: string; [column: string]: unknown }) => string,
): void {
  const shown = (row: { id: string; [column: string]: unknown }) => ({
    payment_id: row.id,
    transaction_id: row.id,
    business_id: row.business_id,
    method: row.method,
    status: row.status,
    amount_brl: Number(row.amount_centavos) / 100,
    external_id: externalIdOf(row),
    failure_code: null,
    failure_reason: null,
    created_at: row.created_at,
    updated_at: row.created_at,
  });
  app.get('/v1/payments/:id', async (req, res, next) => {
    try {
      const business = await businessOf(pool, req.header('x-api-key'));
      if (!business) return void res.status(401).json({ error: { code: 'UNAUTHORIZED' } });
      const { rows } = await pool.query(
        `SELECT * FROM baseline_payments WHERE id = $1 AND business_id = $2`,
        [req.params.id, business.id],
      );
      const row = rows[0];
      if (!row) return void res.status(404).json({ error: { code: 'NOT_FOUND' } });
      res.json(shown(row));
    } catch (err) {
      next(err);
    }
  });
  app.get('/v1/payments', async (req, res, next) => {
    try {
      const business = await businessOf(pool, req.header('x-api-key'));
      if (!business) return void res.status(401).json({ error: { code: 'UNAUTHORIZED' } });
      const limit = Math.min(Math.max(Number(req.query.limit ?? 10) || 10, 1), 100);
      const { rows } = await pool.query(
        `SELECT * FROM baseline_payments WHERE business_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [business.id, limit + 1],
      );
      res.json({ data: rows.slice(0, limit).map(shown), has_more: rows.length > limit });
    } catch (err) {
      next(err);
    }
  });
}
