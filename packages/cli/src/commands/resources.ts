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
import {
  routes,
  type EventType,
  type Gateway,
  type Page,
  type PagedList,
  type PageParams,
  type PaymentMethod,
  type PaymentStatus,
  type Token,
} from '@gateway/sdk';
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

/** A route of the SDK's table, which is generated from the gateway's operation table. */
type Operation = keyof typeof routes;

/** The route's path parameters, in order (`/v1/webhook/{webhook_id}/test` → `webhook_id`). */
const pathParameters = (operation: Operation): string[] =>
  [...routes[operation].path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

/** The route's only path parameter: what a plain command takes as its argument. */
function onlyParameter(operation: Operation): string {
  const [parameter, ...others] = pathParameters(operation);
  if (!parameter || others.length > 0) throw new Error(`${operation} is not a route of one path id`);
  return parameter;
}

/**
 * A plain command on one resource, computed from its route: `<parent> <name> <the route's path id>`, showing what the
 * SDK answers. Only the description and the SDK call are the CLI's own.
 */
function oneResourceCommand(
  act: Act,
  parent: Command,
  name: string,
  operation: Operation,
  description: string,
  call: (gateway: Gateway, id: string) => Promise<object>,
): void {
  parent
    .command(name)
    .description(description)
    .argument(`<${onlyParameter(operation)}>`)
    .action(act(async (context: Context, id: string) => show(context)(await call(context.gateway(), id))));
}

/**
 * A plain list, computed from its route: `<parent> <name>` with the page flags, and the route's path id as its
 * argument when the list belongs to a resource (a payment's refunds).
 */
function listCommand<T extends object>(
  act: Act,
  parent: Command,
  name: string,
  operation: Operation,
  description: string,
  call: (gateway: Gateway, page: PageParams, id: string) => PagedList<Page<T>, T>,
): void {
  const [parameter, ...others] = pathParameters(operation);
  if (others.length > 0) throw new Error(`${operation} is not a list of at most one path id`);
  const command = parent.command(name).description(description);
  if (parameter) command.argument(`<${parameter}>`);
  withListFlags(command).action(
    act(async (context: Context, ...args: unknown[]) => {
      const id = parameter ? (args[0] as string) : '';
      const flags = (parameter ? args[1] : args[0]) as ListFlags;
      await printList(context, (page) => call(context.gateway(), page, id), flags);
    }),
  );
}

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

/**
 * The merchant's API, one command per route, through @gateway/sdk; the plain reads, actions and lists are computed from
 * their routes (oneResourceCommand, listCommand).
 */
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
  oneResourceCommand(act, payments, 'get', 'getPayment', 'read a payment', (gateway, id) =>
    gateway.payments.get(id),
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
  oneResourceCommand(act, payments, 'cancel', 'cancelPayment', 'cancel an open payment', (gateway, id) =>
    gateway.payments.cancel(id),
  );
  waitCommand(act, payments, {
    resource: 'payment',
    description:
      'wait until a payment is in a status (e.g. paid, a moment after a sandbox simulate), then show it',
    statuses: paymentStatuses,
    open: openPaymentStatuses,
    read: (context, id) => context.gateway().payments.get(id),
  });
  listCommand(
    act,
    payments,
    'received-funds',
    'listReceivedFunds',
    'money kept for a payment outside its happy path (late, excess, partial, unmatched, unreadable)',
    (gateway, page, id) => gateway.payments.receivedFunds(id, page),
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
  oneResourceCommand(act, refunds, 'get', 'getRefund', 'read a refund', (gateway, id) =>
    gateway.refunds.get(id),
  );
  waitCommand(act, refunds, {
    resource: 'refund',
    description: 'wait until a refund is in a status (succeeded or failed), then show it',
    statuses: refundStatuses,
    open: openRefundStatuses,
    read: (context, id) => context.gateway().refunds.get(id),
  });
  listCommand(act, refunds, 'list', 'listRefunds', "a payment's refunds, newest first", (gateway, page, id) =>
    gateway.refunds.list(id, page),
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
  oneResourceCommand(act, customers, 'get', 'getCustomer', 'read a customer', (gateway, id) =>
    gateway.customers.get(id),
  );
  listCommand(act, customers, 'list', 'listCustomers', 'list customers, newest first', (gateway, page) =>
    gateway.customers.list(page),
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
  oneResourceCommand(
    act,
    checkouts,
    'get',
    'getCheckout',
    'read a checkout with its newest sessions',
    (gateway, id) => gateway.checkouts.get(id),
  );
  listCommand(act, checkouts, 'list', 'listCheckouts', 'list checkouts, newest first', (gateway, page) =>
    gateway.checkouts.list(page),
  );
  listCommand(
    act,
    checkouts,
    'sessions',
    'listCheckoutSessions',
    "a checkout's payment sessions, newest first",
    (gateway, page, id) => gateway.checkouts.sessions(id, page),
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
  oneResourceCommand(act, webhooks, 'get', 'getWebhook', 'read a webhook (never its secret)', (gateway, id) =>
    gateway.webhooks.get(id),
  );
  listCommand(act, webhooks, 'list', 'listWebhooks', 'list webhooks, newest first', (gateway, page) =>
    gateway.webhooks.list(page),
  );
  oneResourceCommand(
    act,
    webhooks,
    'delete',
    'deleteWebhook',
    'delete a webhook: it stops receiving at once',
    (gateway, id) => gateway.webhooks.delete(id),
  );
  oneResourceCommand(
    act,
    webhooks,
    'rotate-secret',
    'rotateWebhookSecret',
    'a new signing secret (shown once); the old one also signs for 24 h',
    (gateway, id) => gateway.webhooks.rotateSecret(id),
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
  oneResourceCommand(
    act,
    webhooks,
    'test',
    'sendTestWebhook',
    'send a signed webhook.test event now and show how the endpoint answered',
    (gateway, id) => gateway.webhooks.test(id),
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
  oneResourceCommand(act, events, 'get', 'getEvent', 'read an event', (gateway, id) =>
    gateway.events.get(id),
  );

  return [payments, refunds, customers, checkouts, webhooks, events];
}
