import Joi from 'joi';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** A Pix received for a cob, as API Pix v2 lists it in `cob.pix` and in callbacks. */
export interface PixRecebido {
  endToEndId: string;
  txid: string;
  /** API Pix amount string, e.g. "12.34". */
  valor: string;
  horario: string;
  /** Who paid, at PSPs that report it (`{ cpf | cnpj, nome }`); read by domain/payer.ts, never trusted as shaped. */
  pagador?: unknown;
  /**
   * What the amount is made of (API Pix `componentesValor`; a cobv's Pix lists it): `original` and, when they count,
   * `multa`, `juros`, `abatimento`, `desconto`, each `{ valor }`. Read by `componentesOf`, never trusted as shaped.
   */
  componentesValor?: unknown;
}

/** The API Pix v2 `cob` (immediate charge) fields this service relies on; PSPs may send more. */
export interface Cob {
  txid: string;
  revisao: number;
  status: CobStatus;
  /** A cob has `expiracao`; a cobv (charge with a due date) `dataDeVencimento` and `validadeAposVencimento`. */
  calendario: {
    criacao: string;
    expiracao?: number;
    dataDeVencimento?: string;
    validadeAposVencimento?: number;
  };
  /** v2.0 PSPs send `location` top level, later ones `loc.location`; read it through `cobLocation`. */
  location?: string;
  loc?: { id?: number; location: string; tipoCob?: string };
  valor: { original: string };
  chave: string;
  solicitacaoPagador?: string;
  pixCopiaECola?: string;
  pix?: PixRecebido[];
}

const pixAmount = Joi.string().pattern(/^\d{1,10}\.\d{2}$/);

export const pixRecebidoKeys = {
  endToEndId: Joi.string()
    .pattern(/^[a-zA-Z0-9]{32}$/)
    .required(),
  txid: Joi.string()
    .pattern(/^[a-zA-Z0-9]{1,35}$/)
    .required(),
  valor: pixAmount.required(),
  horario: Joi.string().isoDate().required(),
};

const cobFields = {
  txid: Joi.string().required(),
  revisao: Joi.number().integer().min(0).required(),
  status: Joi.string()
    .valid('ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP')
    .required(),
  location: Joi.string(),
  loc: Joi.object({ id: Joi.number(), location: Joi.string().required(), tipoCob: Joi.string() }).unknown(
    true,
  ),
  valor: Joi.object({ original: pixAmount.required() }).unknown(true).required(),
  chave: Joi.string().required(),
  solicitacaoPagador: Joi.string(),
  pixCopiaECola: Joi.string(),
  pix: Joi.array().items(Joi.object(pixRecebidoKeys).unknown(true)),
};
const cobSchema = Joi.object<Cob>({
  ...cobFields,
  calendario: Joi.object({
    criacao: Joi.string().isoDate().required(),
    expiracao: Joi.number().integer().min(0).required(),
  })
    .unknown(true)
    .required(),
}).unknown(true);
/** A cobv (API Pix `CobVCompleta`): a cob's fields, with a due date in its calendar instead of an expiry. */
const cobvSchema = Joi.object<Cob>({
  ...cobFields,
  calendario: Joi.object({
    criacao: Joi.string().isoDate().required(),
    dataDeVencimento: Joi.string()
      .pattern(/^\d{4}-\d{2}-\d{2}$/)
      .required(),
    validadeAposVencimento: Joi.number().integer().min(0),
  })
    .unknown(true)
    .required(),
}).unknown(true);

/** An API Pix v2 payload location (`POST /loc`), to which a cob is moved with `loc.id`. */
export interface PixLocation {
  id: number;
  /** Scheme-less or not, as the PSP sends it; the BR Code carries it without scheme. */
  location: string;
  tipoCob: string;
  criacao: string;
}

const locationSchema = Joi.object<PixLocation>({
  id: Joi.number().integer().min(1).required(),
  location: Joi.string().required(),
  tipoCob: Joi.string().valid('cob', 'cobv').required(),
  criacao: Joi.string().isoDate().required(),
}).unknown(true);

export type Checked<T> = { value: T } | { reason: string };

/** Checks a cob received from the PSP before anything relies on its fields. */
export function validateCob(body: unknown): Checked<Cob> {
  return check(cobSchema, body);
}

/** Checks a cobv received from the PSP before anything relies on its fields. */
export function validateCobv(body: unknown): Checked<Cob> {
  return check(cobvSchema, body);
}

/** Checks a location received from the PSP before a cob is moved to it. */
export function validateLocation(body: unknown): Checked<PixLocation> {
  return check(locationSchema, body);
}

export function check<T>(schema: Joi.ObjectSchema<T>, body: unknown): Checked<T> {
  const { value, error } = schema.validate(body, { abortEarly: false, convert: false });
  return error ? { reason: error.message } : { value };
}

export function cobLocation(cob: Cob): string | undefined {
  return cob.loc?.location ?? cob.location;
}
