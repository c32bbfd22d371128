import { Command, Option } from 'commander';
import {
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  openPaymentStatuses,
  openRefundStatuses,
  paymentMethods,
  paymentStatuses,
  refundStatuses,
  tokens,
  webhookEventNames,
} from '@gateway/contracts';
import type { EventType, Page, PagedList, PaymentMethod, PaymentStatus, Token } from '@gateway/sdk';
import { wholeNumber, type Act, type Context } from '../context';
import { formatRecord, formatTable } from '../output';
import { untilStatus } from '../wait';

interface ListFlags {
  limit?: number;
  startingAfter?: string;
  all?: boolean;
}

/** The columns a list shows, the first that each item has; --json gives every field. */
const COLUMNS = [
  'payment_id',
  'refund_id',
  'customer_id',
  'checkout_id',
  'session_id',
  'webhook_id',
  'funds_id',
  'id',
  'type',
  'method',
  'kind',
  'status',
  'amount_brl',
  'email',
  'url',
  'events',
  'created_at',
  'detected_at',
];

export const eventTypes: readonly EventType[] = webhookEventNames;

function withListFlags(command: Command): Command {
  return command
    .option(
      '--limit <n>',
      `items per page, 1 to ${PAGE_LIMIT_MAX} (the gateway defaults to ${PAGE_LIMIT_DEFAULT})`,
      wholeNumber,
    )
    .option('--starting-after <id>', 'the page after this id')
    .option('--all', 'every page, fetched one after another');
}

/** One page (with a hint to the next), or with --all every item of every page. */
async function printList<T extends object>(
  context: Context,
  list: (params: { limit?: number; starting_after?: string }) => PagedList<Page<T>, T>,
  flags: ListFlags,
): Promise<void> {
  const params = { limit: flags.limit, starting_after: flags.startingAfter };
  if (flags.all) {
    const items: T[] = [];
    for await (const item of list(params)) items.push(item);
    context.output.result(items, (all) => formatTable(all, COLUMNS));
    return;
  }
  const page = await list(params);
  context.output.result(page, ({ data, has_more }) => {
    const last = data.at(-1) as Record<string, unknown> | undefined;
    const idKey = last && Object.keys(last).find((key) => key.endsWith('_id') || key === 'id');
    const more = has_more && idKey ? `\n(more: --starting-after ${String(last[idKey])}, or --all)` : '';
    return `${formatTable(data, COLUMNS)}${more}`;
  });
}

const show = (context: Context) => (record: object) => context.output.result(record, formatRecord);

/** `<parent> wait <id> --status S`: polls the resource until it is in S; fails at once in another final status. */
function waitCommand<Status extends string>(
  act: Act,
  parent: Command,
  spec: {
    resource: 'payment' | 'refund';
    description: string;
    statuses: readonly Status[];
    /** The statuses it can still leave; any other is final. */
    open: readonly Status[];
    read: (context: Context, id: string) => Promise<{ status: string }>;
  },
): void {
  parent
    .command('wait')
    .description(spec.description)
    .argument(`<${spec.resource}_id>`)
    .addOption(
      new Option('--status <status>', 'the status to wait for').choices(spec.statuses).makeOptionMandatory(),
    )
    .addOption(
      new Option('--timeout <seconds>', 'give up after this long').argParser(wholeNumber).default(60),
    )
    .addHelpText('after', `\nIt fails at once (exit 1) if the ${spec.resource} ends in another final status.`)
    .action(
      act(async (context: Context, id: string, flags: { status: Status; timeout: number }) =>
        show(context)(
          await untilStatus(
            `${spec.resource} ${id}`,
            () => spec.read(context, id),
            flags.status,
            spec.open,
            flags.timeout * 1000,
          ),
        ),
      ),
    );
}

/** The merchant's API, one command per route, through @gateway/sdk. */
export function resourceCommands(act: Act): Command[] {
  const payments = new Command('payments').description(
    'create, read, list, change, cancel and simulate payments',
  );
  payments
    .command('create')
    .description('create a PIX or crypto payment')
    .requiredOption('--amount <centavos>', 'amount in centavos (5000 = R$ 50,00)', wholeNumber)
    .addOption(new Option('--method <method>', 'payment method').choices(paymentMethods).default('pix'))
    .addOption(new Option('--token <token>', 'crypto token').choices(tokens).default('usdc'))
    .option('--customer <customer_id>', 'one of your customers')
    .option('--metadata <json>', 'your own data, as JSON text')
    .option('--idempotency-key <key>', 'dedupe key (one is generated otherwise)')
    .action(
      act(
        async (
          context: Context,
          flags: {
            amount: number;
            method: PaymentMethod;
            token: Token;
            customer?: string;
            metadata?: string;
            idempotencyKey?: string;
          },
        ) => {
          const common = { amount: flags.amount, customer_id: flags.customer, metadata: flags.metadata };
          const created = await context.gateway().payments.create(
            flags.method === 'pix'
              ? { payment_method: 'pix', ...common }
              : {
                  payment_method: 'crypto',
                  ...common,
                  crypto: { currency: flags.token, network: 'solana' },
                },
            { idempotencyKey: flags.idempotencyKey },
          );
          show(context)(created);
        },
      ),
    );
  payments
    .command('get')
    .description('read a payment')
    .argument('<payment_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().payments.get(id))),
    );
  withListFlags(
    payments
      .command('list')
      .description('list payments, newest first')
      .addOption(new Option('--status <status>', 'only this status').choices(paymentStatuses))
      .addOption(new Option('--method <method>', 'only this method').choices(paymentMethods))
      .option('--created-gte <iso>', 'created at or after (ISO date-time)')
      .option('--created-lt <iso>', 'created before (ISO date-time)'),
  ).action(
    act(
      async (
        context: Context,
        flags: ListFlags & {
          status?: PaymentStatus;
          method?: PaymentMethod;
          createdGte?: string;
          createdLt?: string;
        },
      ) => {
        const filters = {
          status: flags.status,
          method: flags.method,
          created_gte: flags.createdGte,
          created_lt: flags.createdLt,
        };
        await printList(context, (page) => context.gateway().payments.list({ ...filters, ...page }), flags);
      },
    ),
  );
  payments
    .command('update')
    .description('change the amount or metadata of an open payment (a new QR code, or a new crypto window)')
    .argument('<payment_id>')
    .option('--amount <centavos>', 'new amount in centavos', wholeNumber)
    .option('--metadata <json>', 'new metadata, as JSON text')
    .action(
      act(async (context: Context, id: string, flags: { amount?: number; metadata?: string }) =>
        show(context)(
          await context.gateway().payments.update(id, { amount: flags.amount, metadata: flags.metadata }),
        ),
      ),
    );
  payments
    .command('cancel')
    .description('cancel an open payment')
    .argument('<payment_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().payments.cancel(id))),
    );
  waitCommand(act, payments, {
    resource: 'payment',
    description:
      'wait until a payment is in a status (e.g. paid, a moment after a sandbox simulate), then show it',
    statuses: paymentStatuses,
    open: openPaymentStatuses,
    read: (context, id) => context.gateway().payments.get(id),
  });
  withListFlags(
    payments
      .command('received-funds')
      .description(
        'money kept for a payment outside its happy path (late, excess, partial, unmatched, unreadable)',
      )
      .argument('<payment_id>'),
  ).action(
    act(async (context: Context, id: string, flags: ListFlags) =>
      printList(context, (page) => context.gateway().payments.receivedFunds(id, page), flags),
    ),
  );
  payments
    .command('simulate')
    .description('sandbox: have the rail pay it, fail it, or move its clock past expiry')
    .argument('<payment_id>')
    .addOption(
      new Option('--outcome <outcome>', 'what happens')
        .choices(['paid', 'failed', 'expired'])
        .makeOptionMandatory(),
    )
    .option('--amount <centavos>', 'a partial payment of this amount', wholeNumber)
    .action(
      act(
        async (
          context: Context,
          id: string,
          flags: { outcome: 'paid' | 'failed' | 'expired'; amount?: number },
        ) =>
          show(context)(
            await context.gateway().sandbox.simulate(id, { outcome: flags.outcome, amount: flags.amount }),
          ),
      ),
    );

  const refunds = new Command('refunds').description('refund paid payments and follow the refunds');
  refunds
    .command('create')
    .description('refund a paid payment, in whole (default) or in part')
    .argument('<payment_id>')
    .option('--amount <centavos>', 'refund this much (default: all that is left)', wholeNumber)
    .option('--reason <text>', 'why (up to 140 characters)')
    .option('--idempotency-key <key>', 'dedupe key (one is generated otherwise)')
    .action(
      act(
        async (
          context: Context,
          id: string,
          flags: { amount?: number; reason?: string; idempotencyKey?: string },
        ) =>
          show(context)(
            await context
              .gateway()
              .refunds.create(
                id,
                { amount: flags.amount, reason: flags.reason },
                { idempotencyKey: flags.idempotencyKey },
              ),
          ),
      ),
    );
  refunds
    .command('get')
    .description('read a refund')
    .argument('<refund_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().refunds.get(id))),
    );
  waitCommand(act, refunds, {
    resource: 'refund',
    description: 'wait until a refund is in a status (succeeded or failed), then show it',
    statuses: refundStatuses,
    open: openRefundStatuses,
    read: (context, id) => context.gateway().refunds.get(id),
  });
  withListFlags(
    refunds.command('list').description("a payment's refunds, newest first").argument('<payment_id>'),
  ).action(
    act(async (context: Context, id: string, flags: ListFlags) =>
      printList(context, (page) => context.gateway().refunds.list(id, page), flags),
    ),
  );

  const customers = new Command('customers').description('register and read customers');
  customers
    .command('create')
    .description('register a customer')
    .option('--email <email>')
    .option('--phone <phone_number>')
    .option('--document <cpf_or_cnpj>')
    .option('--metadata <json>')
    .action(
      act(
        async (
          context: Context,
          flags: { email?: string; phone?: string; document?: string; metadata?: string },
        ) =>
          show(context)(
            await context.gateway().customers.create({
              email: flags.email,
              phone_number: flags.phone,
              document_number: flags.document,
              metadata: flags.metadata,
            }),
          ),
      ),
    );
  customers
    .command('get')
    .description('read a customer')
    .argument('<customer_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().customers.get(id))),
    );
  withListFlags(customers.command('list').description('list customers, newest first')).action(
    act(async (context: Context, flags: ListFlags) =>
      printList(context, (page) => context.gateway().customers.list(page), flags),
    ),
  );

  const checkouts = new Command('checkouts').description('hosted checkout links for products');
  checkouts
    .command('create')
    .description('create a checkout link for a product')
    .requiredOption('--product <product_id>')
    .requiredOption('--return-url <url>', 'where the buyer goes once paid')
    .requiredOption('--cancel-url <url>', 'where the buyer goes on cancel')
    .option('--title <title>')
    .option('--slug <slug>')
    .option('--metadata <json>')
    .action(
      act(
        async (
          context: Context,
          flags: {
            product: string;
            returnUrl: string;
            cancelUrl: string;
            title?: string;
            slug?: string;
            metadata?: string;
          },
        ) =>
          show(context)(
            await context.gateway().checkouts.create({
              product_id: flags.product,
              return_url: flags.returnUrl,
              cancel_url: flags.cancelUrl,
              title: flags.title,
              slug: flags.slug,
              metadata: flags.metadata,
            }),
          ),
      ),
    );
  checkouts
    .command('get')
    .description('read a checkout with its newest sessions')
    .argument('<checkout_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().checkouts.get(id))),
    );
  withListFlags(checkouts.command('list').description('list checkouts, newest first')).action(
    act(async (context: Context, flags: ListFlags) =>
      printList(context, (page) => context.gateway().checkouts.list(page), flags),
    ),
  );
  withListFlags(
    checkouts
      .command('sessions')
      .description("a checkout's payment sessions, newest first")
      .argument('<checkout_id>'),
  ).action(
    act(async (context: Context, id: string, flags: ListFlags) =>
      printList(context, (page) => context.gateway().checkouts.sessions(id, page), flags),
    ),
  );

  const webhooks = new Command('webhooks').description('webhook endpoints, their secrets and deliveries');
  webhooks
    .command('create')
    .description('register an https:// endpoint (the signing secret is shown once)')
    .requiredOption('--url <url>')
    .option('--events <names>', `comma-separated, of: ${eventTypes.join(', ')}`, eventTypes.join(','))
    .action(
      act(async (context: Context, flags: { url: string; events: string }) =>
        show(context)(
          await context
            .gateway()
            .webhooks.create({ url: flags.url, events: flags.events.split(',') as EventType[] }),
        ),
      ),
    );
  webhooks
    .command('get')
    .description('read a webhook (never its secret)')
    .argument('<webhook_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().webhooks.get(id))),
    );
  withListFlags(webhooks.command('list').description('list webhooks, newest first')).action(
    act(async (context: Context, flags: ListFlags) =>
      printList(context, (page) => context.gateway().webhooks.list(page), flags),
    ),
  );
  webhooks
    .command('delete')
    .description('delete a webhook: it stops receiving at once')
    .argument('<webhook_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().webhooks.delete(id))),
    );
  webhooks
    .command('rotate-secret')
    .description('a new signing secret (shown once); the old one also signs for 24 h')
    .argument('<webhook_id>')
    .action(
      act(async (context: Context, id: string) =>
        show(context)(await context.gateway().webhooks.rotateSecret(id)),
      ),
    );
  webhooks
    .command('deliveries')
    .description("a webhook's newest deliveries with every attempt")
    .argument('<webhook_id>')
    .option('--limit <n>', `how many (1 to ${PAGE_LIMIT_MAX})`, wholeNumber)
    .action(
      act(async (context: Context, id: string, flags: { limit?: number }) => {
        const page = await context.gateway().webhooks.deliveries(id, { limit: flags.limit });
        context.output.result(page, ({ data }) =>
          formatTable(
            data.map((delivery) => ({ ...delivery, attempts: delivery.attempts.length })),
            ['delivery_id', 'event_type', 'event_id', 'status', 'attempts', 'next_attempt_at', 'created_at'],
          ),
        );
      }),
    );
  webhooks
    .command('retry')
    .description('redeliver a delivery now')
    .argument('<webhook_id>')
    .argument('<delivery_id>')
    .action(
      act(async (context: Context, id: string, deliveryId: string) =>
        show(context)(await context.gateway().webhooks.retryDelivery(id, deliveryId)),
      ),
    );
  webhooks
    .command('test')
    .description('send a signed webhook.test event now and show how the endpoint answered')
    .argument('<webhook_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().webhooks.test(id))),
    );

  const events = new Command('events').description(
    'the events of the last 30 days, as webhooks receive them',
  );
  withListFlags(
    events
      .command('list')
      .description('list events, newest first')
      .addOption(new Option('--type <type>', 'only this type').choices(eventTypes)),
  ).action(
    act(async (context: Context, flags: ListFlags & { type?: EventType }) =>
      printList(context, (page) => context.gateway().events.list({ type: flags.type, ...page }), flags),
    ),
  );
  events
    .command('get')
    .description('read an event')
    .argument('<event_id>')
    .action(
      act(async (context: Context, id: string) => show(context)(await context.gateway().events.get(id))),
    );

  return [payments, refunds, customers, checkouts, webhooks, events];
}
