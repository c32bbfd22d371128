import { Router, type Response } from 'express';
import { customerSearch } from '../../domain/customer-search';
import { roleAllows } from '../../domain/roles';
import type { DataSource } from 'typeorm';
import { refusedOr } from '../api-refusal';
import { recordMemberAction } from '../audit';
import { memberOf, requirePermission, type Member } from '../member';
import { route, sendPage, textOf } from '../respond';
import { customerPage, customersPage, type CustomerForm } from '../views/customers';

const PAGE_SIZE = 25;

async function showCustomers(
  res: Response,
  member: Member,
  extra: { status?: number; after?: string; email?: string; form?: CustomerForm; error?: string } = {},
): Promise<void> {
  const { after, status, email, ...rest } = extra;
  const listed = await refusedOr(async () =>
    member.api.customers.list({
      limit: PAGE_SIZE,
      ...(after ? { starting_after: after } : {}),
      ...(email ? { email } : {}),
    }),
  );
  // The API's refusal of the search (an address that is not one) is shown over the whole list.
  if ('refused' in listed)
    return showCustomers(res, member, { status: listed.refused.status, error: listed.refused.message });
  const page = listed.ok;
  sendPage(
    res,
    status ?? 200,
    customersPage(member.viewer, {
      customers: page.data,
      email,
      nextCursor: page.has_more ? page.data.at(-1)?.customer_id : undefined,
      timeZone: member.business.timeZone,
      canWrite: roleAllows(member.role, 'customers:write'),
      ...rest,
    }),
  );
}

/** Clientes: the business's customers a page at a time, a search by id or e-mail, a new one, one's page. */
export function customerRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get(
    '/clientes',
    requirePermission('customers:read'),
    route(async (req, res) => {
      const search = customerSearch(textOf(req.query.q));
      // A search by id is that customer's page (not found there when it is not the business's).
      if (search.kind === 'id') return res.redirect(303, `/clientes/${encodeURIComponent(search.id)}`);
      await showCustomers(res, memberOf(res), {
        after: textOf(req.query.depois) || undefined,
        ...(search.kind === 'email' ? { email: search.email } : {}),
      });
    }),
  );
  router.post(
    '/clientes',
    requirePermission('customers:write'),
    route(async (req, res) => {
      const member = memberOf(res);
      const form: CustomerForm = {
        name: textOf(req.body.name).trim(),
        email: textOf(req.body.email).trim(),
        phone_number: textOf(req.body.phone_number).trim(),
        document_number: textOf(req.body.document_number).trim(),
      };
      const outcome = await refusedOr(() =>
        member.api.customers.create({
          ...(form.name ? { name: form.name } : {}),
          ...(form.email ? { email: form.email } : {}),
          ...(form.phone_number ? { phone_number: form.phone_number } : {}),
          ...(form.document_number ? { document_number: form.document_number } : {}),
        }),
      );
      if ('refused' in outcome)
        return showCustomers(res, member, {
          status: outcome.refused.status,
          form,
          error: outcome.refused.message,
        });
      // The customer's name, e-mail, phone and document stay out of the log: its id says whom it concerned.
      await recordMemberAction(dataSource, req, member, {
        action: 'customer_created',
        target: outcome.ok.customer_id,
      });
      res.redirect(303, `/clientes/${encodeURIComponent(outcome.ok.customer_id)}?criado=1`);
    }),
  );
  router.get(
    '/clientes/:id',
    requirePermission('customers:read'),
    route(async (req, res) => {
      const member = memberOf(res);
      const customer = await member.api.customers.get(String(req.params.id));
      sendPage(
        res,
        200,
        customerPage(member.viewer, {
          customer,
          timeZone: member.business.timeZone,
          notice: req.query.criado === '1' ? 'Cliente criado.' : undefined,
        }),
      );
    }),
  );
  return router;
}
