import express, { type Response, type Router } from 'express';
import Joi from 'joi';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { type SimulatorContext } from '../context';
import { type ProblemName, sendProblem } from '../problem';
import { type WebhookProbe, probeWebhook } from '../psp-profile';
import { validateBody } from './validation';

/** The body of a webhook's registration (`PUT /webhook/{chave}`, `/webhookrec`, `/webhookcobr`). */
export const webhookSchema = Joi.object<{ webhookUrl: string }>({
  webhookUrl: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
}).unknown(true);

/** Why Efí's check refused a URL, as the bank says it. */
const PROBE_REFUSALS: Record<Exclude<WebhookProbe, 'requires-certificate'>, string> = {
  unreachable: 'A URL informada está inacessível.',
  'accepts-without-certificate': 'A autenticação de TLS mútuo não está configurada na URL informada.',
  'untrusted-server-certificate': 'O certificado do servidor da URL informada não é confiável.',
};

/** `PUT|GET|DELETE {prefix}/webhook/:chave`: where received Pix for that key are notified (plus `/pix`). */
export function webhookRouter(context: SimulatorContext): Router {
  const router = express.Router();

  router.put(
    '/webhook/:chave',
    TokenIssuer.requireScope('webhook.write'),
    asyncHandler(async (req, res) => {
      const chave = req.params.chave;
      const body = validateBody(res, webhookSchema, req.body, {
        name: 'WebhookOperacaoInvalida',
        title: 'Webhook inválido.',
        prefix: 'webhook',
      });
      if (!body) return;
      if (chave !== context.settings.pixKey) {
        sendProblem(
          res,
          400,
          'WebhookOperacaoInvalida',
          'Webhook inválido.',
          'A chave não pertence a esta conta.',
        );
        return;
      }
      if (!(await webhookUrlAccepted(res, context, body.webhookUrl, 'WebhookOperacaoInvalida'))) return;
      await context.store.registerWebhook(chave, body.webhookUrl, context.clock.now());
      // The document's 200 carries no body.
      res.status(200).end();
    }),
  );

  router.get(
    '/webhook/:chave',
    TokenIssuer.requireScope('webhook.read'),
    asyncHandler(async (req, res) => {
      const webhook = await context.store.webhook(req.params.chave ?? '');
      if (webhook === undefined) sendProblem(res, 404, 'WebhookNaoEncontrado', 'Webhook não encontrado.');
      else
        res.json({
          webhookUrl: webhook.webhookUrl,
          chave: req.params.chave,
          cnpj: context.settings.cnpj,
          criacao: webhook.criacao.toISOString(),
        });
    }),
  );

  router.delete(
    '/webhook/:chave',
    TokenIssuer.requireScope('webhook.write'),
    asyncHandler(async (req, res) => {
      if (await context.store.removeWebhook(req.params.chave ?? '')) res.status(204).end();
      else sendProblem(res, 404, 'WebhookNaoEncontrado', 'Webhook não encontrado.');
    }),
  );

  return router;
}

/**
 * Whether a webhook's URL may be registered. Where the PSP's profile calls back over mutual TLS, the URL is first
 * called without a client certificate, as Efí does, and registered only if that call is refused; otherwise the
 * operation's `problem` (400) is answered, saying why, and false.
 */
export async function webhookUrlAccepted(
  res: Response,
  context: SimulatorContext,
  webhookUrl: string,
  problem: ProblemName,
): Promise<boolean> {
  if (!context.settings.profile.callbackMtls) return true;
  const probe = await probeWebhook(webhookUrl, context.webhookProbe);
  if (probe === 'requires-certificate') return true;
  sendProblem(res, 400, problem, 'Webhook inválido.', PROBE_REFUSALS[probe]);
  return false;
}
