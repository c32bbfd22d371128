import { Command } from 'commander';
import type { Act } from '../context';
import { formatRecord, formatTable } from '../output';
import { pageText, tableGroup, type OperationId, type View } from './table';

/** The order `gateway admin --help` lists the commands in, the first operator CLI's. */
const ORDER = [
  'create-business',
  'issue-key',
  'roll-key',
  'revoke-key',
  'set-fee',
  'create-product',
  'show-business',
  'received-funds',
  'parked',
  'redrive-parked',
];

type Count = { queue: string } & Record<string, number | string>;

/** The answers shown otherwise than as a record: a business with its keys, the operators' page, the queue counts. */
const VIEWS: Partial<Record<OperationId, View>> = {
  // A key without scopes has every one: `all`, not the `-` of an absent value.
  getBusiness: ({ api_keys, ...rest }: { api_keys: Array<{ scopes: string[] | null }> }) =>
    [
      formatRecord(rest),
      '',
      formatTable(
        api_keys.map((key) => ({ ...key, scopes: key.scopes ?? 'all' })),
        ['key_prefix', 'status', 'scopes', 'created_at', 'expires_at', 'revoked_at'],
      ),
    ].join('\n'),
  listAllReceivedFunds: pageText(
    [
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
    ],
    false,
  ),
  listParkedMessages: ({ queues, total_parked }: { queues: Count[]; total_parked: number }) =>
    [formatTable(queues, ['queue', 'parked']), `total parked: ${total_parked}`].join('\n'),
  redriveParkedMessages: ({ queues, total_redriven }: { queues: Count[]; total_redriven: number }) =>
    [formatTable(queues, ['queue', 'redriven']), `total re-driven: ${total_redriven}`].join('\n'),
};

/**
 * The operator commands over the gateway's /admin/v1 API (docs/api.md#operator-api-and-cli), with the names and
 * arguments the first operator CLI had (`pnpm admin create-business NAME`...): one per operation of the operator area
 * that has a `cli` field in the gateway's table, computed from its facts (table.ts) and called with the admin token.
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
  return tableGroup(act, admin, { order: ORDER, how: (operation) => ({ view: VIEWS[operation] }) });
}
