import { type DataSource } from 'typeorm';

/** PostgreSQL's unique_violation: a racing request took the same key first. */
export const UNIQUE_VIOLATION = '23505';

/** A webhook of the account, as its books keep it. */
export interface Webhook {
  webhookUrl: string;
  criacao: Date;
}

/**
 * What every store of the simulated bank's books shares: the database the simulator's start opens (and migrates) for
 * it, and the reads of a list a page at a time.
 */
export abstract class Books {
  private database?: DataSource;

  /** The books to work on (opened and migrated by the simulator's start). */
  open(database: DataSource): void {
    this.database = database;
  }

  protected get db(): DataSource {
    if (this.database === undefined) throw new Error('the PSP simulator has not opened its books');
    return this.database;
  }

  /**
   * A page of a list read (`page` from 0, `perPage` rows): `select` from `from` where every condition holds, in
   * `orderBy`, and how many rows there are in all.
   */
  protected async page<Row>(
    select: string,
    from: string,
    conditions: ListConditions,
    orderBy: string,
    page: number,
    perPage: number,
  ): Promise<{ rows: Row[]; total: number }> {
    const { where, params } = conditions;
    const [{ total }] = (await this.db.query(
      `SELECT count(*)::int AS total ${from} WHERE ${where}`,
      params,
    )) as [{ total: number }];
    const rows = (await this.db.query(
      `SELECT ${select} ${from} WHERE ${where} ORDER BY ${orderBy}
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, perPage, page * perPage],
    )) as Row[];
    return { rows, total };
  }
}

/**
 * The books of charges whose account has one webhook of their kind (the cobs' `/webhook/{chave}`, `/webhookrec`,
 * `/webhookcobr`), kept in `webhookTable` by the account's Pix key.
 */
export abstract class BooksWithWebhook extends Books {
  constructor(private readonly webhookTable: 'webhooks' | 'webhooks_rec' | 'webhooks_cobr') {
    super();
  }

  async webhook(pixKey: string): Promise<Webhook | undefined> {
    const [row] = (await this.db.query(
      `SELECT webhook_url, criacao FROM ${this.webhookTable} WHERE pix_key = $1`,
      [pixKey],
    )) as Array<{ webhook_url: string; criacao: Date }>;
    return row && { webhookUrl: row.webhook_url, criacao: row.criacao };
  }

  async registerWebhook(pixKey: string, webhookUrl: string, now: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.webhookTable} (pix_key, webhook_url, criacao) VALUES ($1, $2, $3)
       ON CONFLICT (pix_key) DO UPDATE SET webhook_url = EXCLUDED.webhook_url, criacao = EXCLUDED.criacao`,
      [pixKey, webhookUrl, now],
    );
  }

  /** Answers whether there was one to remove. */
  async removeWebhook(pixKey: string): Promise<boolean> {
    const [, count] = (await this.db.query(`DELETE FROM ${this.webhookTable} WHERE pix_key = $1`, [
      pixKey,
    ])) as [unknown, number];
    return count > 0;
  }
}

/** The conditions of a list read and their parameters; in a condition, `?` stands for its own value's placeholder. */
export class ListConditions {
  private readonly conditions: string[];
  readonly params: unknown[];

  /** The conditions every read of the list has, with `$1`... already written for `params`. */
  constructor(conditions: string[], params: unknown[]) {
    this.conditions = [...conditions];
    this.params = [...params];
  }

  /** `condition` on `value`, when a value is given (a filter not asked for is none). */
  add(condition: string, value: unknown): this {
    if (value === undefined) return this;
    this.params.push(value);
    this.conditions.push(condition.replace('?', `$${this.params.length}`));
    return this;
  }

  /** A condition with no value of its own. */
  also(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  get where(): string {
    return this.conditions.join(' AND ');
  }
}
