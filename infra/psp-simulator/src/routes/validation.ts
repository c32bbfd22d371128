import Joi from 'joi';
import { type Response } from 'express';
import { dayOf } from '../business-days';
import { type ProblemName, sendProblem } from '../problem';
import { validCnpj, validCpf } from '../tax-id';

export const TXID_PATTERN = /^[a-zA-Z0-9]{26,35}$/;
/** Free text of at most `max` characters; a NUL is refused (no bank's books, PostgreSQL's included, keep one). */
export const freeText = (max: number) =>
  Joi.string()
    .max(max)
    .pattern(/^[^\0]*$/, 'sem o caractere NUL');
export const pixAmount = Joi.string()
  .pattern(/^\d{1,10}\.\d{2}$/)
  .invalid('0.00');

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar date as API Pix writes it (`format: date`, ISO 8601 `YYYY-MM-DD`), one that exists. */
export const isoDate = Joi.string().custom((value: string, helpers) =>
  dayOf(value) === undefined ? helpers.error('string.isoDate') : value,
);
/** A date and time as API Pix writes it (`format: date-time`, RFC 3339), one that exists. */
export const dateTime = Joi.string().custom((value: string, helpers) =>
  RFC3339.test(value) && !Number.isNaN(new Date(value).getTime()) ? value : helpers.error('string.dateTime'),
);
/** A debtor's CPF (11 digits) or CNPJ (14 of `[0-9A-Z]`), refused when its check digits are wrong. */
export const cpf = Joi.string()
  .pattern(/^\d{11}$/)
  .custom((value: string, helpers) => (validCpf(value) ? value : helpers.error('string.cpf')));
export const cnpj = Joi.string()
  .pattern(/^[0-9A-Z]{14}$/)
  .custom((value: string, helpers) => (validCnpj(value) ? value : helpers.error('string.cnpj')));
/** What a schema that uses the rules above says when one fails (`.messages(SCHEMA_MESSAGES)`). */
export const SCHEMA_MESSAGES = {
  'string.isoDate': '{{#label}} deve ser uma data YYYY-MM-DD (ISO 8601) que exista',
  'string.dateTime': '{{#label}} deve ser uma data e hora RFC 3339',
  'string.cpf': '{{#label}} não tem dígitos verificadores válidos',
  'string.cnpj': '{{#label}} não tem dígitos verificadores válidos',
};

/** A revision that can only cancel (`SolicRecRevisada`, `CobRRevisada`): `{status: CANCELADA}`. */
export const cancellationSchema = Joi.object<{ status: 'CANCELADA' }>({
  status: Joi.string().valid('CANCELADA').required(),
}).unknown(true);

/** The debtor filters of API Pix's lists (`GET /cobv`, `/rec`, `/cobr`): a CPF or a CNPJ, never both. */
export const DEBTOR_FILTERS = {
  cpf: Joi.string().pattern(/^\d{11}$/),
  cnpj: Joi.string().pattern(/^[0-9A-Z]{14}$/),
};

/** Validates a request body, answering the API Pix problem with one `violacao` per bad property when it fails. */
export function validateBody<T>(
  res: Response,
  schema: Joi.Schema<T>,
  body: unknown,
  problem: { name: ProblemName; title: string; prefix: string },
): T | undefined {
  const { value, error } = schema.validate(body ?? {}, { abortEarly: false, convert: false });
  if (!error) return value;
  const violacoes = error.details.map((detail) => ({
    razao: detail.message,
    propriedade: [problem.prefix, ...detail.path].join('.'),
  }));
  sendProblem(res, 400, problem.name, problem.title, 'A requisição não respeita o schema.', violacoes);
  return undefined;
}

/** A period and page of a list read (API Pix `GET /pix`, Efí's list of sent Pix): `paginaAtual` from 0. */
export interface ListQuery {
  inicio: Date;
  fim: Date;
  paginaAtual: number;
  itensPorPagina: number;
  /** The operation's own filters (`cpf`, `status`...), as given, when it takes any. */
  filters: Record<string, string | undefined>;
}

const listQuerySchema = Joi.object({
  inicio: Joi.string().pattern(RFC3339).required(),
  fim: Joi.string().pattern(RFC3339).required(),
  'paginacao.paginaAtual': Joi.string()
    .pattern(/^\d{1,9}$/)
    .default('0'),
  'paginacao.itensPorPagina': Joi.string()
    .pattern(/^\d{1,4}$/)
    .default('100'),
});

/**
 * Reads a list's query as API Pix states it (`inicio` and `fim` required, RFC 3339, `fim` not before `inicio`;
 * `paginacao.paginaAtual` >= 0, default 0; `paginacao.itensPorPagina` 1 to 1000, default 100), answering the API Pix problem `refuse` names
 * with its violations otherwise (or `refuse`, for a PSP that answers in its own form). Filters the simulator does not
 * keep (`cpf`, `cnpj`...) are refused, not ignored; the debtor filters (`DEBTOR_FILTERS`) are refused together.
 */
export function readListQuery(
  res: Response,
  query: unknown,
  refuse: ProblemName | ((violacoes: Array<{ razao: string; propriedade: string }>) => void),
  filters: Joi.PartialSchemaMap = {},
): ListQuery | undefined {
  const schema = Object.keys(filters).length === 0 ? listQuerySchema : listQuerySchema.keys(filters);
  const { value, error } = schema.validate(query ?? {}, { abortEarly: false, convert: false });
  const violacoes =
    error?.details.map((detail) => ({ razao: detail.message, propriedade: detail.path.join('.') })) ?? [];
  const read = error
    ? undefined
    : {
        inicio: new Date(value.inicio as string),
        fim: new Date(value.fim as string),
        paginaAtual: Number(value['paginacao.paginaAtual']),
        itensPorPagina: Number(value['paginacao.itensPorPagina']),
        filters: Object.fromEntries(
          Object.keys(filters).map((name) => [name, value[name] as string | undefined]),
        ),
      };
  if (read && read.fim.getTime() < read.inicio.getTime())
    violacoes.push({ razao: 'fim é anterior a inicio.', propriedade: 'fim' });
  if (read && (read.itensPorPagina < 1 || read.itensPorPagina > 1000))
    violacoes.push({ razao: 'itensPorPagina vai de 1 a 1000.', propriedade: 'paginacao.itensPorPagina' });
  if (violacoes.length === 0 && read) {
    const { cpf, cnpj } = read.filters;
    if (typeof refuse === 'function' || cpf === undefined || cnpj === undefined) return read;
    const reason = 'Os parâmetros cpf e cnpj não podem ser usados juntos.';
    sendProblem(res, 400, refuse, 'Consulta inválida.', reason, [{ razao: reason, propriedade: 'cpf' }]);
    return undefined;
  }
  if (typeof refuse === 'function') refuse(violacoes);
  else
    sendProblem(
      res,
      400,
      refuse,
      'Consulta inválida.',
      'Os parâmetros da consulta não são válidos.',
      violacoes,
    );
  return undefined;
}

/** The `parametros` of a list's answer: the period, the filters `given` (see `givenFilters`), the page. */
export function listParameters(
  query: ListQuery,
  total: number,
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    inicio: query.inicio.toISOString(),
    fim: query.fim.toISOString(),
    ...given,
    paginacao: {
      paginaAtual: query.paginaAtual,
      itensPorPagina: query.itensPorPagina,
      quantidadeDePaginas: Math.max(1, Math.ceil(total / query.itensPorPagina)),
      quantidadeTotalDeItens: total,
    },
  };
}

/** The filters a list's read was given, as its answer states them again: in their order, `booleans` as booleans. */
export function givenFilters(
  filters: ListQuery['filters'],
  booleans: readonly string[] = [],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filters)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, booleans.includes(name) ? value === 'true' : value]),
  );
}
