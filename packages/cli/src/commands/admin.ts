import { Command, Option } from 'commander';
import { PAGE_LIMIT_MAX, receivedFundsKinds, receivedFundsStatuses } from '@gateway/contracts';
import { wholeNumber, type Act, type Context } from '../context';
import { formatRecord, formatTable } from '../output';

const segment = encodeURIComponent;

/**
 * The operator commands over the gateway's /admin/v1 API (docs/api.md#operator-api-and-cli), with the
 * names and arguments the first operator CLI had (`pnpm admin create-business NAME`...).
 */
export function adminCommand(act: Act): Command {
  const admin = new Command('admin')
    .description(
      'operator commands over /admin/v1 (ADMIN_TOKEN): businesses, keys, fees, products, received funds, parked messages',
    )
    .addHelpText(
      'after',
      '\nThe token: --admin-token or ADMIN_TOKEN. Without one, the sandbox development token, sent only to a gateway on\n' +
        'localhost, 127.0.0.1 or ::1 (--base-url / GATEWAY_URL); any other gateway needs its token given.',
    );

  admin
    .command('create-business')
    .description('create a business and its first API key (the key is shown once)')
    .argument('<name...>', 'the business name')
    .action(
      act(async (context: Context, name: string[]) => {
        const created = await context.admin('POST', '/admin/v1/businesses', { name: name.join(' ') });
        context.output.result(created, formatRecord);
      }),
    );

  admin
    .command('issue-key')
    .description('issue a further API key (rotation: the old keys stay valid until revoked)')
    .argument('<business_id>')
    .action(
      act(async (context: Context, businessId: string) => {
        const issued = await context.admin('POST', `/admin/v1/businesses/${segment(businessId)}/api-keys`);
        context.output.result(issued, formatRecord);
      }),
    );

  admin
    .command('revoke-key')
    .description('revoke an API key by its prefix (it stops working within 5 s)')
    .argument('<key_prefix>')
    // A prefix may begin with '-' (its characters are base64url): an argument, never an option.
    .allowUnknownOption()
    .action(
      act(async (context: Context, keyPrefix: string) => {
        const revoked = await context.admin('DELETE', `/admin/v1/api-keys/${segment(keyPrefix)}`);
        context.output.result(revoked, formatRecord);
      }),
    );

  admin
    .command('set-fee')
    .description("set a business's fee rule for a method: fee = amount × bps / 10000 + fixed")
    .argument('<business_id>')
    .argument('<method>', 'pix or crypto')
    .argument('<bps>', 'basis points (99 = 0.99 %)', wholeNumber)
    .argument('<fixed>', 'fixed part in centavos', wholeNumber)
    .action(
      act(async (context: Context, businessId: string, method: string, bps: number, fixed: number) => {
        const rule = await context.admin(
          'PUT',
          `/admin/v1/businesses/${segment(businessId)}/fee-rules/${segment(method)}`,
          { percent_bps: bps, fixed_centavos: fixed },
        );
        context.output.result(rule, formatRecord);
      }),
    );

  admin
    .command('create-product')
    .description('create a product (checkouts sell products)')
    .argument('<business_id>')
    .argument('<name>')
    .argument('<price>', 'price in centavos', wholeNumber)
    .argument('[description...]')
    .action(
      act(
        async (context: Context, businessId: string, name: string, price: number, description: string[]) => {
          const product = await context.admin(
            'POST',
            `/admin/v1/businesses/${segment(businessId)}/products`,
            {
              name,
              price,
              ...(description.length > 0 ? { description: description.join(' ') } : {}),
            },
          );
          context.output.result(product, formatRecord);
        },
      ),
    );

  admin
    .command('show-business')
    .description('a business and its newest 100 API keys')
    .argument('<business_id>')
    .action(
      act(async (context: Context, businessId: string) => {
        const business = (await context.admin('GET', `/admin/v1/businesses/${segment(businessId)}`)) as {
          api_keys: object[];
        };
        context.output.result(business, ({ api_keys, ...rest }) =>
          [formatRecord(rest), '', formatTable(api_keys, ['key_prefix', 'created_at', 'revoked_at'])].join(
            '\n',
          ),
        );
      }),
    );

  admin
    .command('received-funds')
    .description('money kept outside the happy path across every business, newest first (a page)')
    .addOption(new Option('--kind <kind>', 'only this kind').choices(receivedFundsKinds))
    .addOption(new Option('--status <status>', 'only this status').choices(receivedFundsStatuses))
    .option('--limit <n>', `items per page, 1 to ${PAGE_LIMIT_MAX}`, wholeNumber)
    .option('--starting-after <id>', 'the page after this funds_id')
    .addHelpText(
      'after',
      '\nWhat the watcher has not been able to read yet (the SolanaTransactionsUnread alert):\n' +
        '  gateway admin received-funds --kind unreadable --status held',
    )
    .action(
      act(
        async (
          context: Context,
          flags: { kind?: string; status?: string; limit?: number; startingAfter?: string },
        ) => {
          const query = new URLSearchParams();
          if (flags.kind) query.set('kind', flags.kind);
          if (flags.status) query.set('status', flags.status);
          if (flags.limit !== undefined) query.set('limit', String(flags.limit));
          if (flags.startingAfter) query.set('starting_after', flags.startingAfter);
          const page = (await context.admin('GET', `/admin/v1/received-funds?${query.toString()}`)) as {
            data: Array<{ funds_id: string }>;
            has_more: boolean;
          };
          context.output.result(page, ({ data, has_more }) => {
            const table = formatTable(data, [
              'funds_id',
              'kind',
              'status',
              'rail',
              'amount_brl',
              'amount_token',
              'payment_id',
              'business_id',
              'detected_at',
              'reference',
            ]);
            const last = data.at(-1);
            return has_more && last ? `${table}\n(more: --starting-after ${last.funds_id})` : table;
          });
        },
      ),
    );

  admin
    .command('parked')
    .description('parked messages (failed for good or past the retry bound), by queue')
    .action(
      act(async (context: Context) => {
        const parked = (await context.admin('GET', '/admin/v1/parked')) as {
          queues: object[];
          total_parked: number;
        };
        context.output.result(parked, ({ queues, total_parked }) =>
          [formatTable(queues, ['queue', 'parked']), `total parked: ${total_parked}`].join('\n'),
        );
      }),
    );

  admin
    .command('redrive-parked')
    .description('move parked messages back to their queue (e.g. payment.events), or of every queue')
    .argument('[queue]')
    .action(
      act(async (context: Context, queue: string | undefined) => {
        const moved = (await context.admin(
          'POST',
          '/admin/v1/parked/redrive',
          queue === undefined ? {} : { queue },
        )) as { queues: object[]; total_redriven: number };
        context.output.result(moved, ({ queues, total_redriven }) =>
          [formatTable(queues, ['queue', 'redriven']), `total re-driven: ${total_redriven}`].join('\n'),
        );
      }),
    );

  return admin;
}
