import Joi from 'joi';
import { type Checked, type Cob, type PixRecebido, check, pixRecebidoKeys } from './cob';

// Pix Automático as API Pix 2.9.0 states it: the recurrence (`Rec*`), the request for the payer's authorization
// (`SolicRec*`), the recurrence's payload location (`locrec`) and the cycles (`CobR*`). Only the fields this service
// relies on are checked; PSPs may send more.

/** API Pix `StatusRec`. */
export type RecStatusAtPsp = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';

/** API Pix `encerramento` of a recurrence or a cycle: why it ended. */
export interface Encerramento {
  rejeicao?: { codigo?: string; descricao?: string };
  cancelamento?: { solicitante?: string; codigo?: string; descricao?: string };
}

/** A recurrence as `POST|GET|PATCH /rec` answer it (`RecGerada`, `RecCompleta`). */
export interface Rec {
  idRec: string;
  status: RecStatusAtPsp;
  vinculo: { contrato: string; objeto?: string };
  atualizacao?: Array<{ status: string; data: string }>;
  encerramento?: Encerramento;
  loc?: { id: number; location: string };
  solicitacao?: Array<{ idSolicRec: string; status: string }>;
  /** `GET /rec/{idRec}` with a location: the QR code that authorizes it (and with `?txid`, pays the charge). */
  dadosQR?: { jornada?: string; pixCopiaECola: string };
}

const encerramento = Joi.object({
  rejeicao: Joi.object({ codigo: Joi.string(), descricao: Joi.string() }).unknown(true),
  cancelamento: Joi.object({
    solicitante: Joi.string(),
    codigo: Joi.string(),
    descricao: Joi.string(),
  }).unknown(true),
}).unknown(true);

const atualizacao = Joi.array().items(
  Joi.object({ status: Joi.string().required(), data: Joi.string().isoDate().required() }).unknown(true),
);

const recSchema = Joi.object<Rec>({
  idRec: Joi.string()
    .pattern(/^[a-zA-Z0-9]{29}$/)
    .required(),
  status: Joi.string().valid('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA').required(),
  vinculo: Joi.object({ contrato: Joi.string().required(), objeto: Joi.string() }).unknown(true).required(),
  atualizacao,
  encerramento,
  loc: Joi.object({ id: Joi.number().integer().required(), location: Joi.string().required() }).unknown(true),
  solicitacao: Joi.array().items(
    Joi.object({ idSolicRec: Joi.string().required(), status: Joi.string().required() }).unknown(true),
  ),
  dadosQR: Joi.object({ jornada: Joi.string(), pixCopiaECola: Joi.string().required() }).unknown(true),
}).unknown(true);

export function validateRec(body: unknown): Checked<Rec> {
  return check(recSchema, body);
}

export function validateRecList(body: unknown): Checked<{ recs: Rec[] }> {
  return check(
    Joi.object<{ recs: Rec[] }>({ recs: Joi.array().items(recSchema).required() }).unknown(true),
    body,
  );
}

/** `POST /solicrec`'s answer. */
export interface SolicRec {
  idSolicRec: string;
  idRec: string;
  status: string;
}
export function validateSolicRec(body: unknown): Checked<SolicRec> {
  return check(
    Joi.object<SolicRec>({
      idSolicRec: Joi.string()
        .pattern(/^[a-zA-Z0-9]{29}$/)
        .required(),
      idRec: Joi.string().required(),
      status: Joi.string().required(),
    }).unknown(true),
    body,
  );
}

/** `POST /locrec`'s answer. */
export interface RecLocation {
  id: number;
  location: string;
}
export function validateRecLocation(body: unknown): Checked<RecLocation> {
  return check(
    Joi.object<RecLocation>({
      id: Joi.number().integer().min(1).required(),
      location: Joi.string().required(),
    }).unknown(true),
    body,
  );
}

/** API Pix `StatusCobR`. */
export type CobrStatus = 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';

/** An attempt at debiting a cycle (`CobRTentativas.tentativas[]`). */
export interface Tentativa {
  dataLiquidacao: string;
  tipo: string;
  status: 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
  rejeicao?: { codigo?: string; descricao?: string };
}

/** A cycle as `PUT|GET|PATCH /cobr/{txid}` answer it (`CobRCompleta`). */
export interface Cobr {
  idRec: string;
  txid: string;
  status: CobrStatus;
  calendario: { criacao?: string; dataDeVencimento: string };
  valor: { original: string };
  politicaRetentativa?: 'NAO_PERMITE' | 'PERMITE_3R_7D';
  encerramento?: Encerramento;
  tentativas?: Tentativa[];
  pix?: PixRecebido[];
}

const cobrSchema = Joi.object<Cobr>({
  idRec: Joi.string().required(),
  txid: Joi.string()
    .pattern(/^[a-zA-Z0-9]{26,35}$/)
    .required(),
  status: Joi.string().valid('CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA').required(),
  calendario: Joi.object({
    criacao: Joi.string(),
    dataDeVencimento: Joi.string()
      .pattern(/^\d{4}-\d{2}-\d{2}$/)
      .required(),
  })
    .unknown(true)
    .required(),
  valor: Joi.object({
    original: Joi.string()
      .pattern(/^\d{1,10}\.\d{2}$/)
      .required(),
  })
    .unknown(true)
    .required(),
  politicaRetentativa: Joi.string().valid('NAO_PERMITE', 'PERMITE_3R_7D'),
  encerramento,
  tentativas: Joi.array().items(
    Joi.object({
      dataLiquidacao: Joi.string()
        .pattern(/^\d{4}-\d{2}-\d{2}$/)
        .required(),
      tipo: Joi.string().required(),
      status: Joi.string()
        .valid('SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA')
        .required(),
      rejeicao: Joi.object({ codigo: Joi.string(), descricao: Joi.string() }).unknown(true),
    }).unknown(true),
  ),
  pix: Joi.array().items(Joi.object(pixRecebidoKeys).unknown(true)),
}).unknown(true);

export function validateCobr(body: unknown): Checked<Cobr> {
  return check(cobrSchema, body);
}

/**
 * A cycle seen as the charge it is (so the received-Pix machinery reads it as any charge): ATIVA while it can still be
 * debited, CONCLUIDA once debited (with its Pix), removed once it cannot be: by us (CANCELADA at our request) or else.
 */
export function cobOfCobr(cobr: Cobr): Cob {
  const open = cobr.status === 'CRIADA' || cobr.status === 'ATIVA';
  const status = open
    ? 'ATIVA'
    : cobr.status === 'CONCLUIDA'
      ? 'CONCLUIDA'
      : cobr.status === 'CANCELADA' && cobr.encerramento?.cancelamento?.solicitante === 'USUARIO_RECEBEDOR'
        ? 'REMOVIDA_PELO_USUARIO_RECEBEDOR'
        : 'REMOVIDA_PELO_PSP';
  return {
    txid: cobr.txid,
    revisao: 0,
    status,
    calendario: {
      criacao: cobr.calendario.criacao ?? '',
      dataDeVencimento: cobr.calendario.dataDeVencimento,
    },
    valor: { original: cobr.valor.original },
    chave: '',
    ...(cobr.pix === undefined ? {} : { pix: cobr.pix }),
  };
}
