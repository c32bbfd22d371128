import { type Router } from 'express';
import { asyncHandler } from '@gateway/http-errors';
import { TokenIssuer } from '../auth';
import { type BooksWithWebhook } from '../books';
import { type SimulatorContext } from '../context';
import { type ProblemName, sendProblem } from '../problem';
import { validateBody } from './validation';
import { webhookSchema, webhookUrlAccepted } from './webhook';

/**
 * `PUT`/`GET`/`DELETE /webhookrec` or `/webhookcobr` (API Pix 2.9.0): one webhook per account, its URL probed for
 * mutual TLS where the PSP's profile calls back over it, scopes `<name>.write` and `<name>.read`.
 */
export function recurrenceWebhookRoutes(
  router: Router,
  context: SimulatorContext,
  webhook: { name: 'webhookrec' | 'webhookcobr'; problem: ProblemName; books: BooksWithWebhook },
): void {
  const { settings, clock } = context;
  const path = `/${webhook.name}`;
  router.put(
    path,
    TokenIssuer.requireScope(`${webhook.name}.write`),
    asyncHandler(async (req, res) => {
      const body = validateBody(res, webhookSchema, req.body, {
        name: webhook.problem,
        title: 'Webhook inválido.',
        prefix: 'webhook',
      });
      if (!body || !(await webhookUrlAccepted(res, context, body.webhookUrl, webhook.problem))) return;
      await webhook.books.registerWebhook(settings.pixKey, body.webhookUrl, clock.now());
      res.status(200).end();
    }),
  );

  router.get(
    path,
    TokenIssuer.requireScope(`${webhook.name}.read`),
    asyncHandler(async (_req, res) => {
      const found = await webhook.books.webhook(settings.pixKey);
      if (found === undefined) sendProblem(res, 404, 'NaoEncontrado', 'Webhook não encontrado.');
      else res.json({ webhookUrl: found.webhookUrl, criacao: found.criacao.toISOString() });
    }),
  );

  router.delete(
    path,
    TokenIssuer.requireScope(`${webhook.name}.write`),
    asyncHandler(async (_req, res) => {
      if (await webhook.books.removeWebhook(settings.pixKey)) res.status(204).end();
      else sendProblem(res, 404, 'NaoEncontrado', 'Webhook não encontrado.');
    }),
  );
}

/** `POST {webhookrec}/rec` or `{webhookcobr}/cobr` with `body`, when the account registered that webhook. */
export async function notifyRecurrenceWebhook(
  context: SimulatorContext,
  books: BooksWithWebhook,
  path: 'rec' | 'cobr',
  body: Record<string, unknown>,
): Promise<void> {
  const webhook = await books.webhook(context.settings.pixKey);
  if (webhook !== undefined) context.callbacks.dispatchTo(webhook.webhookUrl, path, body);
}
