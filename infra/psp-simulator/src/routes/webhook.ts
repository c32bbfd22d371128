import express, { type Router } from 'express';
import Joi from 'joi';
import { type SimulatorContext } from '../context';
import { sendProblem } from '../problem';
import { validateBody } from './validation';

const webhookSchema = Joi.object<{ webhookUrl: string }>({
  webhookUrl: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
}).unknown(true);

/** `PUT|GET|DELETE {prefix}/webhook/:chave`: where received Pix for that key are notified (plus `/pix`). */
export function webhookRouter(context: SimulatorContext): Router {
  const router = express.Router();

  router.put('/webhook/:chave', (req, res) => {
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
    context.webhookUrlByChave.set(chave, body.webhookUrl);
    res.status(200).json({ webhookUrl: body.webhookUrl, chave, criacao: new Date().toISOString() });
  });

  router.get('/webhook/:chave', (req, res) => {
    const webhookUrl = context.webhookUrlByChave.get(req.params.chave);
    if (webhookUrl === undefined) sendProblem(res, 404, 'WebhookNaoEncontrado', 'Webhook não encontrado.');
    else res.json({ webhookUrl, chave: req.params.chave });
  });

  router.delete('/webhook/:chave', (req, res) => {
    if (context.webhookUrlByChave.delete(req.params.chave)) res.status(204).end();
    else sendProblem(res, 404, 'WebhookNaoEncontrado', 'Webhook não encontrado.');
  });

  return router;
}
