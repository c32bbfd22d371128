import Joi from 'joi';
import { pixAmountToCentavos } from '../../domain/amount';
import { type PixRecebido, pixRecebidoKeys } from './cob';
import { type PixDevolucao, devolucaoSchema } from './devolucao';

export interface PspCallbackItem extends PixRecebido {
  valorCentavos: number;
  devolucoes: PixDevolucao[];
}

export interface RejectedCallbackItem {
  /** Position in the `pix` array, or null when the whole body is malformed. */
  index: number | null;
  reason: string;
}

export interface PspCallbackParseResult {
  items: PspCallbackItem[];
  rejected: RejectedCallbackItem[];
}

// Other item fields (infoPagador, componentesValor...) are dropped, not refused.
const itemSchema = Joi.object<PixRecebido & { devolucoes: PixDevolucao[] }>({
  ...pixRecebidoKeys,
  devolucoes: Joi.array().items(devolucaoSchema).default([]),
});
const envelopeSchema = Joi.object({ pix: Joi.array().required() }).unknown(true);

/**
 * Reads a PSP callback (`POST <webhookUrl>/pix`): `{"pix": [...]}` per API Pix, or a bare array as some PSPs send.
 * Each item is judged alone so one malformed entry does not hide the valid payments beside it. An item's
 * `devolucoes` (the PSP calls back when a refund of that Pix ends) are read with it; the Pix the account sent, told on
 * the same webhook, are left to `parseSentPixCallback`.
 */
export function parsePspCallback(body: unknown): PspCallbackParseResult {
  const list = Array.isArray(body) ? body : readEnvelope(body);
  if (typeof list === 'string') return { items: [], rejected: [{ index: null, reason: list }] };
  const result: PspCallbackParseResult = { items: [], rejected: [] };
  list.forEach((entry, index) => {
    // A Pix sent from the account (Efí: `tipo` and `gnExtras.idEnvio`) is read by `parseSentPixCallback`.
    if (isSentPix(entry)) return;
    const { value, error } = itemSchema.validate(entry, {
      abortEarly: false,
      convert: false,
      stripUnknown: true,
    });
    if (error) result.rejected.push({ index, reason: error.message });
    else result.items.push({ ...value, valorCentavos: pixAmountToCentavos(value.valor) });
  });
  return result;
}

function isSentPix(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && 'gnExtras' in entry && 'tipo' in entry;
}

function readEnvelope(body: unknown): unknown[] | string {
  const { value, error } = envelopeSchema.validate(body, { convert: false });
  return error ? `callback body is neither {"pix": [...]} nor an array: ${error.message}` : value.pix;
}
