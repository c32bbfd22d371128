import Joi from 'joi';
import { type Response } from 'express';
import { type ProblemName, sendProblem } from '../problem';

export const TXID_PATTERN = /^[a-zA-Z0-9]{26,35}$/;
/** Free text of at most `max` characters; a NUL is refused (no bank's books, PostgreSQL's included, keep one). */
export const freeText = (max: number) =>
  Joi.string()
    .max(max)
    .pattern(/^[^\0]*$/, 'sem o caractere NUL');
export const pixAmount = Joi.string()
  .pattern(/^\d{1,10}\.\d{2}$/)
  .invalid('0.00');

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
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

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
 * keep (`cpf`, `cnpj`...) are refused, not ignored.
 */
export function readListQuery(
  res: Response,
  query: unknown,
  refuse: ProblemName | ((violacoes: Array<{ razao: string; propriedade: string }>) => void),
): ListQuery | undefined {
  const { value, error } = listQuerySchema.validate(query ?? {}, { abortEarly: false, convert: false });
  const violacoes =
    error?.details.map((detail) => ({ razao: detail.message, propriedade: detail.path.join('.') })) ?? [];
  const read = error
    ? undefined
    : {
        inicio: new Date(value.inicio as string),
        fim: new Date(value.fim as string),
        paginaAtual: Number(value['paginacao.paginaAtual']),
        itensPorPagina: Number(value['paginacao.itensPorPagina']),
      };
  if (read && read.fim.getTime() < read.inicio.getTime())
    violacoes.push({ razao: 'fim é anterior a inicio.', propriedade: 'fim' });
  if (read && (read.itensPorPagina < 1 || read.itensPorPagina > 1000))
    violacoes.push({ razao: 'itensPorPagina vai de 1 a 1000.', propriedade: 'paginacao.itensPorPagina' });
  if (violacoes.length === 0 && read) return read;
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

/** The `parametros` of a list's answer. */
export function listParameters(query: ListQuery, total: number): Record<string, unknown> {
  return {
    inicio: query.inicio.toISOString(),
    fim: query.fim.toISOString(),
    paginacao: {
      paginaAtual: query.paginaAtual,
      itensPorPagina: query.itensPorPagina,
      quantidadeDePaginas: Math.max(1, Math.ceil(total / query.itensPorPagina)),
      quantidadeTotalDeItens: total,
    },
  };
}
