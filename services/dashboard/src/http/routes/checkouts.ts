import { Router, type Response } from 'express';
import { parseBrlInput } from '../../domain/format';
import { roleAllows } from '../../domain/roles';
import type { DataSource } from 'typeorm';
import { refusedOr } from '../api-refusal';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { checkoutPage, checkoutsPage, type CheckoutForm, type ProductForm } from '../views/checkouts';

const PAGE_SIZE = 25;
const PRICE_HINT = 'Informe o preço em reais, por exemplo 79,90.';

type ListExtra = {
  status?: number;
  productsAfter?: string;
  checkoutsAfter?: string;
  productForm?: ProductForm;
  checkoutForm?: CheckoutForm;
  notice?: string;
  error?: string;
};

async function showCheckouts(res: Response, member: Member, extra: ListExtra = {}): Promise<void> {
  const { status, productsAfter, checkoutsAfter, ...rest } = extra;
  const [products, checkouts] = await Promise.all([
    member.api.products.list({
      limit: PAGE_SIZE,
      ...(productsAfter ? { starting_after: productsAfter } : {}),
    }),
    member.api.checkouts.list({
      limit: PAGE_SIZE,
      ...(checkoutsAfter ? { starting_after: checkoutsAfter } : {}),
    }),
  ]);
  sendPage(
    res,
    status ?? 200,
    checkoutsPage(member.viewer, {
      products: products.data,
      checkouts: checkouts.data,
      productsCursor: products.has_more ? products.data.at(-1)?.product_id : undefined,
      checkoutsCursor: checkouts.has_more ? checkouts.data.at(-1)?.checkout_id : undefined,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'checkouts:write'),
      ...rest,
    }),
  );
}

async function showCheckout(
  res: Response,
  member: Member,
  checkoutId: string,
  extra: { status?: number; notice?: string; error?: string } = {},
): Promise<void> {
  const checkout = await member.api.checkouts.get(checkoutId);
  sendPage(
    res,
    extra.status ?? 200,
    checkoutPage(member.viewer, {
      checkout,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'checkouts:write'),
      notice: extra.notice,
      error: extra.error,
    }),
  );
}

const productFormOf = (body: Record<string, unknown>): ProductForm => ({
  name: textOf(body.name).trim(),
  price: textOf(body.price).trim(),
  description: textOf(body.description).trim(),
});

/** The notices a redirect after an action carries in its query. */
const notices: Record<string, string> = {
  produto: 'Produto criado.',
  'produto-salvo': 'Produto salvo: os checkouts dele o vendem assim a partir de agora.',
  'produto-desativado': 'Produto desativado: nenhum checkout novo pode vendê-lo.',
  'produto-reativado': 'Produto reativado: novos checkouts podem vendê-lo.',
  criado: 'Checkout criado: compartilhe o link.',
  salvo: 'Checkout salvo.',
  desativado: 'Checkout desativado: o link não abre mais a página.',
  reativado: 'Checkout reativado: o link abre a página de novo.',
};

/**
 * Checkouts: the business's products and checkouts (with their hosted links); a product created, changed, deactivated
 * or reactivated (an inactive one is sold by no new checkout); a checkout created, changed, deactivated or reactivated.
 * All through the public API.
 */
export function checkoutRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/checkouts',
    requirePermission('checkouts:read'),
    route(async (req, res) =>
      showCheckouts(res, memberOf(res), {
        productsAfter: textOf(req.query.produtos_depois) || undefined,
        checkoutsAfter: textOf(req.query.checkouts_depois) || undefined,
        notice: notices[textOf(req.query.aviso)],
      }),
    ),
  );
  router.post(
    '/checkouts/produtos',
    requirePermission('checkouts:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const productForm = productFormOf(req.body);
      const price = parseBrlInput(productForm.price);
      if (price === null) return showCheckouts(res, member, { status: 422, productForm, error: PRICE_HINT });
      const outcome = await refusedOr(() =>
        member.api.products.create({
          name: productForm.name,
          price,
          ...(productForm.description ? { description: productForm.description } : {}),
        }),
      );
      if ('refused' in outcome)
        return showCheckouts(res, member, {
          status: outcome.refused.status,
          productForm,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'product_created',
        target: outcome.ok.product_id,
        details: { price: productForm.price },
      });
      res.redirect(303, '/checkouts?aviso=produto');
    }),
  );
  router.post(
    '/checkouts/produtos/:id',
    requirePermission('checkouts:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const productId = String(req.params.id);
      const form = productFormOf(req.body);
      const price = parseBrlInput(form.price);
      if (price === null) return showCheckouts(res, member, { status: 422, error: PRICE_HINT });
      const outcome = await refusedOr(() =>
        member.api.products.update(productId, {
          name: form.name,
          price,
          description: form.description || null,
        }),
      );
      if ('refused' in outcome)
        return showCheckouts(res, member, { status: outcome.refused.status, error: outcome.refused.message });
      await recordMemberAction(dataSource, req, member, {
        action: 'product_changed',
        target: productId,
        details: { price: form.price },
      });
      res.redirect(303, '/checkouts?aviso=produto-salvo');
    }),
  );
  for (const [action, status, notice, audited] of [
    ['desativar', 'inactive', 'produto-desativado', 'product_deactivated'],
    ['reativar', 'active', 'produto-reativado', 'product_reactivated'],
  ] as const)
    router.post(
      `/checkouts/produtos/:id/${action}`,
      requirePermission('checkouts:write'),
      route(async (req, res) => {
        const member = memberOf(res);
        const productId = String(req.params.id);
        const outcome = await refusedOr(() => member.api.products.update(productId, { status }));
        if ('refused' in outcome)
          return showCheckouts(res, member, {
            status: outcome.refused.status,
            error: outcome.refused.message,
          });
        await recordMemberAction(dataSource, req, member, { action: audited, target: productId });
        res.redirect(303, `/checkouts?aviso=${notice}`);
      }),
    );
  router.post(
    '/checkouts',
    requirePermission('checkouts:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const checkoutForm: CheckoutForm = {
        product_id: textOf(req.body.product_id),
        title: textOf(req.body.title).trim(),
        return_url: textOf(req.body.return_url).trim(),
        cancel_url: textOf(req.body.cancel_url).trim(),
      };
      const outcome = await refusedOr(() =>
        member.api.checkouts.create({
          product_id: checkoutForm.product_id,
          return_url: checkoutForm.return_url,
          cancel_url: checkoutForm.cancel_url,
          ...(checkoutForm.title ? { title: checkoutForm.title } : {}),
        }),
      );
      if ('refused' in outcome)
        return showCheckouts(res, member, {
          status: outcome.refused.status,
          checkoutForm,
          error: outcome.refused.message,
        });
      await recordMemberAction(dataSource, req, member, {
        action: 'checkout_created',
        target: outcome.ok.checkout_id,
        details: { product_id: checkoutForm.product_id },
      });
      res.redirect(303, `/checkouts/${encodeURIComponent(outcome.ok.checkout_id)}?aviso=criado`);
    }),
  );
  router.get(
    '/checkouts/:id',
    requirePermission('checkouts:read'),
    route(async (req, res) =>
      showCheckout(res, memberOf(res), String(req.params.id), { notice: notices[textOf(req.query.aviso)] }),
    ),
  );
  const change = (
    path: string,
    changes: (body: Record<string, unknown>) => Parameters<Member['api']['checkouts']['update']>[1],
    notice: string,
    audited: 'checkout_changed' | 'checkout_deactivated' | 'checkout_reactivated',
  ) =>
    router.post(
      path,
      requirePermission('checkouts:write'),
      route(async (req, res) => {
        const member = memberOf(res);
        const checkoutId = String(req.params.id);
        const outcome = await refusedOr(() => member.api.checkouts.update(checkoutId, changes(req.body)));
        if ('refused' in outcome)
          return showCheckout(res, member, checkoutId, {
            status: outcome.refused.status,
            error: outcome.refused.message,
          });
        await recordMemberAction(dataSource, req, member, { action: audited, target: checkoutId });
        res.redirect(303, `/checkouts/${encodeURIComponent(checkoutId)}?aviso=${notice}`);
      }),
    );
  change(
    '/checkouts/:id',
    (body) => ({
      title: textOf(body.title).trim() || null,
      return_url: textOf(body.return_url).trim(),
      cancel_url: textOf(body.cancel_url).trim(),
    }),
    'salvo',
    'checkout_changed',
  );
  change('/checkouts/:id/desativar', () => ({ status: 'inactive' }), 'desativado', 'checkout_deactivated');
  change('/checkouts/:id/reativar', () => ({ status: 'active' }), 'reativado', 'checkout_reactivated');
  return router;
}
