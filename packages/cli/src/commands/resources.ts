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
import { generatedBodies } from '@gateway/sdk/src/generated/bodies';
import type { OperationTypes } from '@gateway/sdk/src/generated/types';
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

/** An operation that takes a JSON body, and the fields of its body (generated from the gateway's table). */
type BodyOperation = keyof typeof generatedBodies;
type BodyField<O extends BodyOperation> = keyof (typeof generatedBodies)[O] & string;
type Body<O extends BodyOperation> = OperationTypes[O] extends { body: infer B } ? B : never;
interface FieldFacts {
  required: boolean;
  type: string;
  values?: readonly string[];
}

/** Where a flag is not its field's plain flag: its own name, what its value is called, its help text, its default. */
interface FlagOverride {
  flag?: string;
  value?: string;
  description?: string;
  default?: string;
}

/**
 * The flags of a command that sends a body, computed from the fields of the operation's body: `--<field-in-kebab-case>
 * <field>`, mandatory when the field is required, a whole number when it is an integer, one of its values when it has
 * a fixed set, a comma-separated list when it is an array; `overrides` gives a flag its CLI name, value name, help
 * text or default. Answers the body the parsed flags make.
 */
function bodyFlags<O extends BodyOperation>(
  command: Command,
  operation: O,
  overrides: { [F in BodyField<O>]?: FlagOverride } = {},
): (flags: Record<string, unknown>) => Body<O> {
  const fields = Object.entries(generatedBodies[operation] as Record<string, FieldFacts>).map(
    ([name, facts]) => {
      const own: FlagOverride = (overrides as Record<string, FlagOverride | undefined>)[name] ?? {};
      const option = new Option(
        `--${own.flag ?? name.replace(/_/g, '-')} <${own.value ?? name}>`,
        own.description,
      );
      if (facts.type === 'integer') option.argParser(wholeNumber);
      if (facts.values) option.choices(facts.values);
      if (facts.required) option.makeOptionMandatory();
      if (own.default !== undefined) option.default(own.default);
      command.addOption(option);
      return { name, attribute: option.attributeName(), list: facts.type === 'array' };
    },
  );
  return (flags) =>
    Object.fromEntries(
      fields.map(({ name, attribute, list }) => {
        const value = flags[attribute];
        return [name, list && typeof value === 'string' ? value.split(',') : value];
      }),
    ) as Body<O>;
}

const CENTAVOS = 'centavos';
const JSON_TEXT = 'json';

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
  const update = payments
    .command('update')
    .description('change the amount or metadata of an open payment (a new QR code, or a new crypto window)')
    .argument('<payment_id>');
  const updateBody = bodyFlags(update, 'updatePayment', {
    amount: { value: CENTAVOS, description: 'new amount in centavos' },
    metadata: { value: JSON_TEXT, description: 'new metadata, as JSON text' },
  });
  update.action(
    act(async (context: Context, id: string, flags: Record<string, unknown>) =>
      show(context)(await context.gateway().payments.update(id, updateBody(flags))),
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
  const simulate = payments
    .command('simulate')
    .description('sandbox: have the rail pay it, fail it, or move its clock past expiry')
    .argument('<payment_id>');
  const simulateBody = bodyFlags(simulate, 'simulatePayment', {
    outcome: { description: 'what happens' },
    amount: { value: CENTAVOS, description: 'a partial payment of this amount' },
  });
  simulate.action(
    act(async (context: Context, id: string, flags: Record<string, unknown>) =>
      show(context)(await context.gateway().sandbox.simulate(id, simulateBody(flags))),
    ),
  );

  const refunds = new Command('refunds').description('refund paid payments and follow the refunds');
  const refund = refunds
    .command('create')
    .description('refund a paid payment, in whole (default) or in part')
    .argument('<payment_id>');
  const refundBody = bodyFlags(refund, 'createRefund', {
    amount: { value: CENTAVOS, description: 'refund this much (default: all that is left)' },
    reason: { value: 'text', description: 'why (up to 140 characters)' },
  });
  refund
    .option('--idempotency-key <key>', 'dedupe key (one is generated otherwise)')
    .action(
      act(
        async (context: Context, id: string, flags: Record<string, unknown> & { idempotencyKey?: string }) =>
          show(context)(
            await context
              .gateway()
              .refunds.create(id, refundBody(flags), { idempotencyKey: flags.idempotencyKey }),
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
  const customer = customers.command('create').description('register a customer');
  const customerBody = bodyFlags(customer, 'createCustomer', {
    phone_number: { flag: 'phone' },
    document_number: { flag: 'document', value: 'cpf_or_cnpj' },
    metadata: { value: JSON_TEXT },
  });
  customer.action(
    act(async (context: Context, flags: Record<string, unknown>) =>
      show(context)(await context.gateway().customers.create(customerBody(flags))),
    ),
  );
  oneResourceCommand(act, customers, 'get', 'getCustomer', 'read a customer', (gateway, id) =>
    gateway.customers.get(id),
  );
  listCommand(act, customers, 'list', 'listCustomers', 'list customers, newest first', (gateway, page) =>
    gateway.customers.list(page),
  );

  const checkouts = new Command('checkouts').description('hosted checkout links for products');
  const checkout = checkouts.command('create').description('create a checkout link for a product');
  const checkoutBody = bodyFlags(checkout, 'createCheckout', {
    product_id: { flag: 'product' },
    return_url: { value: 'url', description: 'where the buyer goes once paid' },
    cancel_url: { value: 'url', description: 'where the buyer goes on cancel' },
    metadata: { value: JSON_TEXT },
  });
  checkout.action(
    act(async (context: Context, flags: Record<string, unknown>) =>
      show(context)(await context.gateway().checkouts.create(checkoutBody(flags))),
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
  const webhook = webhooks
    .command('create')
    .description('register an https:// endpoint (the signing secret is shown once)');
  const webhookBody = bodyFlags(webhook, 'createWebhook', {
    events: {
      value: 'names',
      description: `comma-separated, of: ${eventTypes.join(', ')}`,
      default: eventTypes.join(','),
    },
  });
  webhook.action(
    act(async (context: Context, flags: Record<string, unknown>) =>
      show(context)(await context.gateway().webhooks.create(webhookBody(flags))),
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
