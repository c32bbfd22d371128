import Joi from 'joi';
import { DEVOLUCAO_ID_PATTERN } from '../../domain/devolucao-id';
import { type Checked, pixRecebidoKeys } from './cob';

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** A refund of a received Pix as API Pix v2 returns it (`Devolucao`), and as callbacks carry it in `devolucoes`. */
export interface PixDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  status: DevolucaoStatus;
  horario: { solicitacao?: string; liquidacao?: string };
  descricao?: string;
  motivo?: string;
  /** ORIGINAL when absent; MED_FRAUDE / MED_OPERACIONAL for a MED the payer's bank raised. */
  natureza?: string;
}

export const devolucaoSchema = Joi.object<PixDevolucao>({
  id: Joi.string().pattern(DEVOLUCAO_ID_PATTERN).required(),
  rtrId: Joi.string()
    .pattern(/^[a-zA-Z0-9]{32}$/)
    .required(),
  valor: pixRecebidoKeys.valor,
  status: Joi.string().valid('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO').required(),
  horario: Joi.object({ solicitacao: Joi.string().isoDate(), liquidacao: Joi.string().isoDate() })
    .unknown(true)
    .required(),
  descricao: Joi.string(),
  motivo: Joi.string(),
  natureza: Joi.string(),
});

/** Checks a devolução received from the PSP before its status settles a refund. */
export function validateDevolucao(body: unknown): Checked<PixDevolucao> {
  // PSPs may send more: kept, not refused.
  const { value, error } = devolucaoSchema.validate(body, {
    abortEarly: false,
    convert: false,
    allowUnknown: true,
  });
  return error ? { reason: error.message } : { value };
}

export function isFinalDevolucao(devolucao: PixDevolucao): boolean {
  return devolucao.status !== 'EM_PROCESSAMENTO';
}
