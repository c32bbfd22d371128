import { maskPixKeyIn } from '../../domain/pix-key';

export type PspErrorKind = 'not_found' | 'invalid' | 'conflict' | 'unavailable' | 'unauthorized';

export interface PspViolation {
  razao?: string;
  propriedade?: string;
}

/**
 * Any failure talking to the PSP, normalised from RFC 7807 problem+json, the `{nome, mensagem}` form, an OAuth error
 * or a network error.
 */
export class PspError extends Error {
  constructor(
    readonly kind: PspErrorKind,
    /** HTTP status, or null when no response arrived (network error, timeout). */
    readonly status: number | null,
    readonly detail: string,
    readonly extra: {
      type?: string;
      /** The PSP's own error name, when it answers `{nome, mensagem}` (Efí: `saldo_insuficiente`...). */
      name?: string;
      violacoes?: PspViolation[];
      retryAfterMs?: number;
    } = {},
  ) {
    super(`PSP ${kind}${status === null ? '' : ` (${status})`}: ${detail}`);
    this.name = 'PspError';
  }

  /** The same failure with the Pix key masked in its detail (a PSP may echo the key it refuses). */
  withPixKeyMasked(chave: string): PspError {
    return new PspError(this.kind, this.status, maskPixKeyIn(this.detail, chave), this.extra);
  }

  get retryable(): boolean {
    return this.kind === 'unavailable';
  }
}

/** A refusal of the PSP answers the same every time; its unavailability (or a token refused for now) may pass. */
export function isPspRefusal(error: unknown): error is PspError {
  return error instanceof PspError && !error.retryable && error.kind !== 'unauthorized';
}

/** Efí and other PSPs answer a reused txid with 400 `{nome: "txid_duplicado"}` instead of 409. */
const CONFLICT_NAMES = new Set(['txid_duplicado']);

export function pspErrorFromResponse(
  status: number,
  body: unknown,
  retryAfter: string | undefined,
): PspError {
  const problem = readErrorBody(body);
  const kind = CONFLICT_NAMES.has(problem.name ?? '') ? 'conflict' : kindForStatus(status);
  return new PspError(kind, status, problem.detail ?? `HTTP ${status}`, {
    type: problem.type,
    name: problem.name,
    violacoes: problem.violacoes,
    retryAfterMs: parseRetryAfter(retryAfter),
  });
}

function kindForStatus(status: number): PspErrorKind {
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429 || status >= 500) return 'unavailable';
  return 'invalid';
}

interface ErrorBody {
  name?: string;
  type?: string;
  detail?: string;
  violacoes?: PspViolation[];
}

function readErrorBody(body: unknown): ErrorBody {
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof record[key] === 'string' ? record[key] : undefined;
  const violacoes = Array.isArray(record.violacoes) ? (record.violacoes as PspViolation[]) : undefined;
  const reasons = violacoes?.map((v) => `${v.propriedade ?? '?'}: ${v.razao ?? '?'}`).join('; ');
  const detail = [
    text('title'),
    text('detail') ?? text('mensagem') ?? text('error_description') ?? text('error'),
    reasons,
  ]
    .filter(Boolean)
    .join(' - ');
  return { name: text('nome'), type: text('type'), detail: detail || undefined, violacoes };
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
