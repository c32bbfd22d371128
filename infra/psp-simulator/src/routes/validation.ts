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
