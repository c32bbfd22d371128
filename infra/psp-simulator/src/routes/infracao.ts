import express, { type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { toPixAmount } from '../cob-store';
import { type SimulatorContext } from '../context';
import { type StoredInfracao } from '../infracao-store';
import { efiErrorHandler, readEfiListQuery, sendEfiError, sendJsonInvalido } from './envio';
import { freeText, listParameters } from './validation';

interface DefesaBody {
  analise: string;
  justificativa: string;
}

/**
 * Efí's MED infractions, served in the Efí mode only (a profile with `medDefence`; elsewhere the paths are unknown:
 * 404, as at any bank without them). Paths, methods and scopes as Efí's SDKs declare them (docs/psp-profiles.md):
 * - `GET /v2/gn/infracoes?inicio=&fim=` (scope `gn.infractions.read`): the account's infractions opened in the period,
 *   `{parametros: {inicio, fim, paginacao}, infracoes: [...]}`, paged as the other lists.
 * - `POST /v2/gn/infracoes/:idInfracao/defesa` `{analise, justificativa}` (scope `gn.infractions.write`): the
 *   receiver's defence of an ABERTA infraction, which becomes EM_DEFESA; 200 with the infraction.
 * What the SDKs do not show (an infraction's fields past `idInfracao`/`endToEndId`/`status`, the longest
 * `justificativa`, `analise` besides `aceito`, the errors' names) is the simulator's own, marked `unverified` in the
 * profile. A body outside the schema is 400 `json_invalido` with `erros`, as Efí answers its other operations.
 */
export function infracaoRouter(context: SimulatorContext): Router {
  const router = express.Router();
  const defence = context.settings.profile.medDefence;
  if (defence === null) return router;
  const defesaSchema = Joi.object<DefesaBody>({
    analise: Joi.string().valid('aceito', 'negado').required(),
    justificativa: freeText(defence.maxTextLength).min(1).required(),
  });

  router.get(
    '/v2/gn/infracoes',
    TokenIssuer.requireScope('gn.infractions.read'),
    asyncHandler(async (req, res) => {
      const query = readEfiListQuery(res, req.query);
      if (!query) return;
      const { infracoes, total } = await context.infracoes.list(
        context.settings.pixKey,
        query.inicio,
        query.fim,
        query.paginaAtual,
        query.itensPorPagina,
      );
      res.json({ parametros: listParameters(query, total), infracoes: infracoes.map(infracaoView) });
    }),
  );

  router.post(
    '/v2/gn/infracoes/:idInfracao/defesa',
    TokenIssuer.requireScope('gn.infractions.write'),
    asyncHandler(async (req, res) => {
      const { value: body, error } = defesaSchema.validate(req.body ?? {}, {
        abortEarly: false,
        convert: false,
      });
      if (error)
        return sendJsonInvalido(
          res,
          error.details.map((detail) => ({
            chave: detail.type,
            caminho: ['.body', ...detail.path].join('.'),
            mensagem: detail.message,
          })),
        );
      const defended = await context.infracoes.defend(
        context.settings.pixKey,
        req.params.idInfracao ?? '',
        body,
        context.clock.now(),
      );
      // The names and words of both refusals are the simulator's (Efí's were not found).
      if (defended === 'not_found')
        return sendEfiError(
          res,
          404,
          'infracao_nao_encontrada',
          'Nenhuma infração encontrada para o identificador informado',
        );
      if (defended === 'not_open')
        return sendEfiError(
          res,
          400,
          'infracao_nao_permite_defesa',
          'A infração não está aberta para defesa',
        );
      res.json(infracaoView(defended));
    }),
  );

  router.use('/v2/gn/infracoes', efiErrorHandler(context));
  return router;
}

/** An infraction as the simulator answers it (fields past `idInfracao`, `endToEndId` and `status`: its own). */
function infracaoView(infracao: StoredInfracao): Record<string, unknown> {
  return {
    idInfracao: infracao.idInfracao,
    endToEndId: infracao.endToEndId,
    chave: infracao.chave,
    valor: toPixAmount(infracao.valorCentavos),
    status: infracao.status,
    ...(infracao.analise === undefined ? {} : { analise: infracao.analise }),
    ...(infracao.justificativa === undefined ? {} : { defesa: infracao.justificativa }),
    criadoEm: infracao.criadoEm.toISOString(),
    ...(infracao.defesaEm === undefined ? {} : { recebimentoDefesa: infracao.defesaEm.toISOString() }),
    ...(infracao.finalizadoEm === undefined ? {} : { finalizacao: infracao.finalizadoEm.toISOString() }),
  };
}
