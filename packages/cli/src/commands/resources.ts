import { Command, Option } from 'commander';
import {
  openPaymentStatuses,
  openRefundStatuses,
  paymentStatuses,
  payoutStatuses,
  refundStatuses,
  webhookEventNames,
} from '@gateway/contracts';
import type { EventType, WebhookDelivery } from '@gateway/sdk';
import { wholeNumber, type Act, type Context } from '../context';
import { formatRecord, formatTable } from '../output';
import { untilStatus } from '../wait';
import { commandFacts, sdkMethod, tableGroup, type MerchantOperation, type View } from './table';

export const eventTypes: readonly EventType[] = webhookEventNames;

/**
 * The merchant command groups, in the order `gateway --help` lists them, with what each is for; a group's commands are
 * its operations' in the table's order, its own (`wait`) among them.
 */
const GROUPS = {
  payments: 'create, read, list, change, cancel and simulate payments',
  refunds: 'refund paid payments and follow the refunds',
  customers: 'register and read customers',
  checkouts: 'hosted checkout links for products',
  products: 'the products checkouts sell',
  webhooks: 'webhook endpoints, their secrets and deliveries',
  events: 'the events of the last 30 days, as webhooks receive them',
  balance: "the business's balance and the balance transactions that explain it",
  payouts: "pay out available money to the business's payout account, and follow the payouts",
  disputes: 'disputes (the PIX MED) opened against paid payments, how they ended, and your defence',
  subscriptions:
    'recurring PIX billing (Pix Automático): create, read, list and cancel subscriptions; sandbox clock',
};

/** The answers shown otherwise than as a record or a page: a webhook's deliveries, with their count of attempts. */
const VIEWS: Partial<Record<MerchantOperation, View>> = {
  listWebhookDeliveries: ({ data }: { data: WebhookDelivery[] }) =>
    formatTable(
      data.map((delivery) => ({ ...delivery, attempts: delivery.attempts.length })),
      ['delivery_id', 'event_type', 'event_id', 'status', 'attempts', 'next_attempt_at', 'created_at'],
    ),
};

/**
 * `<group> wait <id> --status S`: reads the resource with the group's `get` until it is in S; fails at once in another
 * final status.
 */
function waitCommand<Status extends string>(
  act: Act,
  spec: {
    read: 'getPayment' | 'getRefund' | 'getPayout';
    description: string;
    statuses: readonly Status[];
    /** The statuses it can still leave; any other is final. */
    open: readonly Status[];
  },
): Command {
  const [id] = commandFacts[spec.read].params;
  const resource = id!.replace(/_id$/, '');
  return new Command('wait')
    .description(spec.description)
    .argument(`<${id}>`)
    .addOption(
      new Option('--status <status>', 'the status to wait for').choices(spec.statuses).makeOptionMandatory(),
    )
    .addOption(
      new Option('--timeout <seconds>', 'give up after this long').argParser(wholeNumber).default(60),
    )
    .addHelpText('after', `\nIt fails at once (exit 1) if the ${resource} ends in another final status.`)
    .action(
      act(async (context: Context, id: string, flags: { status: Status; timeout: number }) => {
        const read = sdkMethod(commandFacts[spec.read])(context.gateway()) as (
          id: string,
        ) => Promise<{ status: string }>;
        const record = await untilStatus(
          `${resource} ${id}`,
          () => read(id),
          flags.status,
          spec.open,
          flags.timeout * 1000,
        );
        context.output.result(record, formatRecord);
      }),
    );
}

/**
 * The merchant's API, one command per operation of the gateway's table that has one (its `cli` field), through
 * @gateway/sdk: arguments, flags and the SDK method called (its `sdk` field) are computed from the operation's facts
 * (table.ts); only `wait`, the groups' descriptions and the deliveries' table are the CLI's own.
 */
export function resourceCommands(act: Act): Command[] {
  const own: Partial<Record<keyof typeof GROUPS, Array<{ command: Command; after: string }>>> = {
    payments: [
      {
        after: 'cancel',
        command: waitCommand(act, {
          read: 'getPayment',
          description:
            'wait until a payment is in a status (e.g. paid, a moment after a sandbox simulate), then show it',
          statuses: paymentStatuses,
          open: openPaymentStatuses,
        }),
      },
    ],
    refunds: [
      {
        after: 'get',
        command: waitCommand(act, {
          read: 'getRefund',
          description: 'wait until a refund is in a status (succeeded or failed), then show it',
          statuses: refundStatuses,
          open: openRefundStatuses,
        }),
      },
    ],
    payouts: [
      {
        after: 'get',
        command: waitCommand(act, {
          read: 'getPayout',
          description:
            'wait until a payout is in a status (paid or failed, once the PSP has sent it), then show it',
          statuses: payoutStatuses,
          open: ['pending'],
        }),
      },
    ],
  };
  for (const facts of Object.values(commandFacts)) {
    const group = facts.command.split(' ')[0]!;
    if (group !== 'admin' && !(group in GROUPS))
      throw new Error(`${facts.command}: the CLI has no group ${group} (resources.ts, GROUPS)`);
  }
  return (Object.keys(GROUPS) as Array<keyof typeof GROUPS>).map((name) =>
    tableGroup(act, new Command(name).description(GROUPS[name]), {
      own: own[name],
      how: (operation) => ({ view: VIEWS[operation as MerchantOperation] }),
    }),
  );
}
