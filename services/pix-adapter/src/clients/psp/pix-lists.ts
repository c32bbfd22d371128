import Joi from 'joi';
import { type Checked, pixRecebidoKeys } from './cob';
import { devolucaoSchema, type PixDevolucao } from './devolucao';

/**
 * The PSP's lists of a period, as API Pix pages them (`parametros.paginacao`: `paginaAtual` from 0,
 * `quantidadeDePaginas`): the Pix received (`GET /pix?inicio=&fim=`, API Pix v2 `PixConsultados`) and the Pix sent (Efí
 * `GET /v2/gn/pix/enviados?inicio=&fim=`, https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/).
 */

/** The most items one page asks for (API Pix's bound for `paginacao.itensPorPagina`). */
export const LIST_PAGE_SIZE = 1000;
/** A bound on pages read for one period, so a PSP that pages forever cannot hold a read forever. */
export const LIST_MAX_PAGES = 1000;

export interface ListedPix {
  endToEndId: string;
  txid: string | null;
  valor: string;
  horario: string;
  devolucoes: PixDevolucao[];
  /** What its amount is made of (API Pix `componentesValor`), when the PSP lists it; read by `componentesOf`. */
  componentesValor?: unknown;
}

export interface ListedSentPix {
  endToEndId: string;
  idEnvio: string;
  valor: string;
  status: 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
  horario: { solicitacao: string; liquidacao?: string };
}

export interface ListPage<T> {
  items: T[];
  pages: number;
}

const paginacao = Joi.object({
  paginaAtual: Joi.number().integer().min(0).required(),
  quantidadeDePaginas: Joi.number().integer().min(0).required(),
}).unknown(true);

const receivedPixSchema = Joi.object({
  ...pixRecebidoKeys,
  // A Pix to the key with no charge has no txid.
  txid: pixRecebidoKeys.txid.optional().allow(null),
  devolucoes: Joi.array().items(devolucaoSchema.unknown(true)),
}).unknown(true);

const receivedPageSchema = Joi.object({
  parametros: Joi.object({ paginacao: paginacao.required() }).unknown(true).required(),
  pix: Joi.array().items(receivedPixSchema).default([]),
}).unknown(true);

const sentPageSchema = Joi.object({
  parametros: Joi.object({ paginacao: paginacao.required() }).unknown(true).required(),
  pix: Joi.array()
    .items(
      Joi.object({
        endToEndId: Joi.string().max(64).required(),
        idEnvio: Joi.string().max(64).required(),
        valor: pixRecebidoKeys.valor,
        status: Joi.string().valid('EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO').required(),
        horario: Joi.object({
          solicitacao: Joi.string().isoDate().required(),
          liquidacao: Joi.string().isoDate(),
        })
          .unknown(true)
          .required(),
      }).unknown(true),
    )
    .default([]),
}).unknown(true);

function checkPage<T>(schema: Joi.Schema, body: unknown, item: (raw: never) => T): Checked<ListPage<T>> {
  const { value, error } = schema.validate(body, { abortEarly: false, convert: false });
  if (error) return { reason: error.message };
  const page = value as { parametros: { paginacao: { quantidadeDePaginas: number } }; pix: never[] };
  return { value: { items: page.pix.map(item), pages: page.parametros.paginacao.quantidadeDePaginas } };
}

interface RawReceivedPix {
  endToEndId: string;
  txid?: string | null;
  valor: string;
  horario: string;
  devolucoes?: PixDevolucao[];
  componentesValor?: unknown;
}

const listedPix = (raw: RawReceivedPix): ListedPix => ({
  endToEndId: raw.endToEndId,
  txid: raw.txid ?? null,
  valor: raw.valor,
  horario: raw.horario,
  devolucoes: raw.devolucoes ?? [],
  ...(raw.componentesValor === undefined ? {} : { componentesValor: raw.componentesValor }),
});

export function validateReceivedPage(body: unknown): Checked<ListPage<ListedPix>> {
  return checkPage(receivedPageSchema, body, listedPix);
}

/** One Pix received, as `GET /pix/{e2eid}` answers it (API Pix v2 `Pix`), with its devoluções. */
export function validateReceivedPix(body: unknown): Checked<ListedPix> {
  const { value, error } = receivedPixSchema.validate(body, { abortEarly: false, convert: false });
  return error ? { reason: error.message } : { value: listedPix(value as RawReceivedPix) };
}

export function validateSentPage(body: unknown): Checked<ListPage<ListedSentPix>> {
  return checkPage(sentPageSchema, body, (raw: ListedSentPix) => ({
    endToEndId: raw.endToEndId,
    idEnvio: raw.idEnvio,
    valor: raw.valor,
    status: raw.status,
    horario: {
      solicitacao: raw.horario.solicitacao,
      ...(raw.horario.liquidacao === undefined ? {} : { liquidacao: raw.horario.liquidacao }),
    },
  }));
}

/** The query of one page of a period. */
export function listQuery(inicio: Date, fim: Date, page: number): string {
  const params = new URLSearchParams({
    inicio: inicio.toISOString(),
    fim: fim.toISOString(),
    'paginacao.paginaAtual': String(page),
    'paginacao.itensPorPagina': String(LIST_PAGE_SIZE),
  });
  return params.toString();
}

/** Reads every page of a period, in order, through `readPage`. */
export async function readAllPages<T>(readPage: (page: number) => Promise<ListPage<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 0; page < LIST_MAX_PAGES; page += 1) {
    const read = await readPage(page);
    items.push(...read.items);
    if (page + 1 >= read.pages) return items;
  }
  throw new Error(`the PSP's list has more than ${LIST_MAX_PAGES} pages`);
}
