import Joi from 'joi';
import { type Checked } from './cob';
import { type ListPage } from './pix-lists';

/**
 * Efí's MED infractions, the operations of its own beside API Pix (which has none), as its SDKs declare them
 * (docs/psp-profiles.md#med-defence; what could not be confirmed is in the profile's `unverified`):
 * - `GET /v2/gn/infracoes?inicio=&fim=` (scope `gn.infractions.read`): the account's infractions in the period,
 *   `{parametros: {inicio, fim, paginacao}, infracoes: [...]}`, paged as API Pix lists are;
 * - `POST /v2/gn/infracoes/:idInfracao/defesa` `{analise, justificativa}` (scope `gn.infractions.write`): the
 *   receiver's defence of one.
 */
export const MED_DEFENCE_SCOPES = 'gn.infractions.read gn.infractions.write';

/** What the receiver's defence says of the claim: the payer's bank's claim is contested. */
export const CONTESTED = 'negado';

/** An infraction as the PSP lists it: what the adapter relies on. */
export interface Infracao {
  idInfracao: string;
  endToEndId: string;
  /** `ABERTA` takes a defence; `EM_DEFESA` has one. */
  status: string;
}

const infracaoSchema = Joi.object({
  idInfracao: Joi.alternatives(Joi.string().max(64), Joi.number().integer()).required(),
  endToEndId: Joi.string().max(64).required(),
  status: Joi.string().max(64).required(),
}).unknown(true);

const infracoesPageSchema = Joi.object({
  parametros: Joi.object({
    paginacao: Joi.object({
      paginaAtual: Joi.number().integer().min(0).required(),
      quantidadeDePaginas: Joi.number().integer().min(0).required(),
    })
      .unknown(true)
      .required(),
  })
    .unknown(true)
    .required(),
  infracoes: Joi.array().items(infracaoSchema).default([]),
}).unknown(true);

/** One page of `GET /v2/gn/infracoes`, checked before anything relies on it. */
export function validateInfracoesPage(body: unknown): Checked<ListPage<Infracao>> {
  const { value, error } = infracoesPageSchema.validate(body, { abortEarly: false, convert: false });
  if (error) return { reason: error.message };
  const page = value as {
    parametros: { paginacao: { quantidadeDePaginas: number } };
    infracoes: Array<{ idInfracao: string | number; endToEndId: string; status: string }>;
  };
  return {
    value: {
      items: page.infracoes.map((raw) => ({
        idInfracao: String(raw.idInfracao),
        endToEndId: raw.endToEndId,
        status: raw.status,
      })),
      pages: page.parametros.paginacao.quantidadeDePaginas,
    },
  };
}

/** The answer to a defence is not relied upon (Efí's is not documented in what could be read): any JSON will do. */
export function acceptAnyAnswer(body: unknown): Checked<unknown> {
  return { value: body };
}

/** The infraction of a Pix that a defence goes to: the newest one still taking a defence, or one defended already. */
export function infractionOf(infracoes: readonly Infracao[], endToEndId: string): Infracao | undefined {
  const ofPix = infracoes.filter((infracao) => infracao.endToEndId === endToEndId);
  return ofPix.find((infracao) => infracao.status === 'ABERTA') ?? ofPix.find(isDefended);
}

export function isDefended(infracao: Infracao): boolean {
  return infracao.status === 'EM_DEFESA';
}
