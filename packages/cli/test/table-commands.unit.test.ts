import { CommanderError, type Command, type Option } from 'commander';
import { paymentStatuses, receivedFundsKinds } from '@gateway/contracts';
import { readEnvironment } from '../src/config';
import type { Act, Context } from '../src/context';
import { buildProgram } from '../src/main';
import { Output } from '../src/output';
import { commandFacts, commandOf, type CommandFacts } from '../src/commands/table';

interface Sent {
  method: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}

/** An Act whose commands get a context that records the operator calls and the SDK's, and the output. */
function harness() {
  const sent: Sent[] = [];
  const sdkCalls: unknown[][] = [];
  const out: string[] = [];
  const context: Context = {
    output: new Output({
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: () => true },
      json: false,
      color: 'never',
    }),
    baseUrl: 'http://127.0.0.1:1',
    apiKey: () => 'sk_test_x',
    gateway: () => ({}) as ReturnType<Context['gateway']>,
    admin: async (method, path, body, headers) => {
      sent.push({ method, path, body, ...(headers && Object.keys(headers).length > 0 ? { headers } : {}) });
      return { data: [{ thing_id: 'thg_1', status: 'open' }], has_more: true };
    },
  };
  const act: Act =
    (action) =>
    async (...args) => {
      await action(context, ...(args.slice(0, -1) as never[]));
    };
  const sdk =
    () =>
    async (...args: unknown[]) => {
      sdkCalls.push(args);
      return { payment_id: 'pay_1' };
    };
  return { act, sent, sdkCalls, sdk, out };
}

/** Runs one built command on `argv` as the CLI would (a wrong use is a CommanderError, not an exit). */
async function parse(command: Command, argv: string[]): Promise<void> {
  command.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await command.parseAsync(argv, { from: 'user' });
}

const option = (command: Command, long: string): Option | undefined =>
  command.options.find((each) => each.long === long);

/** An operator list as `pnpm generate:sdk` writes an entry with a path id, a page, an enum filter and a renamed one. */
const listThings: CommandFacts = {
  command: 'admin things',
  description: 'list the things of a shop',
  area: 'admin',
  method: 'GET',
  path: '/admin/v1/shops/{shop_id}/things',
  params: ['shop_id'],
  query: {
    limit: { required: false, type: 'integer' },
    starting_after: { required: false, type: 'string' },
    status: { required: false, type: 'string', values: ['open', 'closed'] },
    created_gte: { required: false, type: 'string' },
  },
  fields: { created_gte: { flag: 'since', value: 'iso', description: 'created at or after' } },
};

/** A merchant create whose body has a conditional object, filled from a flag of its own and a fixed value. */
const createThing: CommandFacts = {
  command: 'things create',
  description: 'create a thing',
  area: 'api',
  method: 'POST',
  path: '/v1/shops/{shop_id}/things',
  params: ['shop_id'],
  query: {},
  body: {
    kind: { required: true, type: 'string', values: ['plain', 'crypto'] },
    amount: { required: true, type: 'integer' },
    tags: { required: false, type: 'array', values: ['a', 'b', 'c'] },
    crypto: { required: false, type: 'object' },
    'crypto.currency': { required: false, type: 'string', values: ['usdc', 'USDC'] },
    'crypto.network': { required: false, type: 'string', values: ['solana'] },
    note: { required: false, type: 'string' },
    internal: { required: false, type: 'string' },
  },
  order: ['amount', 'kind'],
  fields: {
    kind: { default: 'plain' },
    'crypto.currency': { flag: 'token', choices: ['usdc'], default: 'usdc', when: { kind: 'crypto' } },
    'crypto.network': { fixed: 'solana', when: { kind: 'crypto' } },
    note: { argument: 'words' },
    internal: { skip: true },
  },
};

describe('a command computed from its operation', () => {
  test("its arguments are the path ids; an enum filter is a flag offering the filter's values; a page has its flags", async () => {
    const { act, sent, out } = harness();
    const command = commandOf(act, listThings);
    expect(command.name()).toBe('things');
    expect(command.registeredArguments.map((argument) => argument.name())).toEqual(['shop_id']);
    expect(option(command, '--status')).toMatchObject({
      argChoices: ['open', 'closed'],
      description: 'only this status',
    });
    expect(option(command, '--since')).toMatchObject({
      flags: '--since <iso>',
      description: 'created at or after',
    });
    expect(command.options.map((each) => each.long)).toEqual([
      '--status',
      '--since',
      '--limit',
      '--starting-after',
    ]);

    await parse(command, ['shop/1', '--status', 'open', '--since', '2026-01-01', '--limit', '5']);
    expect(sent).toEqual([
      {
        method: 'GET',
        path: '/admin/v1/shops/shop%2F1/things?status=open&created_gte=2026-01-01&limit=5',
        body: undefined,
      },
    ]);
    expect(out.join('')).toBe('STATUS\nopen\n(more: --starting-after thg_1)\n');
    await expect(parse(commandOf(act, listThings), ['shop_1', '--status', 'lost'])).rejects.toThrow(
      CommanderError,
    );
    await expect(parse(commandOf(act, listThings), ['shop_1', '--limit', 'many'])).rejects.toThrow(
      /whole number/,
    );
  });

  test('a body is made of its flags (in the order given), its arguments, and the values its entry fixes', async () => {
    const { act, sdk, sdkCalls } = harness();
    const command = commandOf(act, createThing, { sdk });
    expect(command.registeredArguments.map((argument) => [argument.name(), argument.variadic])).toEqual([
      ['shop_id', false],
      ['note', true],
    ]);
    expect(command.options.map((each) => each.flags)).toEqual([
      '--amount <amount>',
      '--kind <kind>',
      '--tags <tags>',
      '--token <currency>',
      '--idempotency-key <key>',
    ]);
    expect(option(command, '--tags')?.description).toBe('comma-separated, of: a, b, c');
    expect(option(command, '--amount')?.mandatory).toBe(true);

    await parse(command, ['shop_1', 'for', 'you', '--amount', '500', '--tags', 'a,b']);
    await parse(commandOf(act, createThing, { sdk }), [
      'shop_1',
      '--amount',
      '500',
      '--kind',
      'crypto',
      '--idempotency-key',
      'k1',
    ]);
    expect(sdkCalls).toEqual([
      [
        'shop_1',
        { kind: 'plain', amount: 500, tags: ['a', 'b'], note: 'for you' },
        { idempotencyKey: undefined },
      ],
      [
        'shop_1',
        { kind: 'crypto', amount: 500, crypto: { currency: 'usdc', network: 'solana' } },
        { idempotencyKey: 'k1' },
      ],
    ]);
    await expect(parse(commandOf(act, createThing, { sdk }), ['shop_1', '--kind', 'plain'])).rejects.toThrow(
      /required option '--amount <amount>'/,
    );
  });

  test('a number the field allows below zero takes a minus sign; a boolean field is a switch', async () => {
    const { act, sent } = harness();
    const adjust: CommandFacts = {
      command: 'admin adjust',
      description: 'adjust a balance',
      area: 'admin',
      method: 'POST',
      path: '/admin/v1/adjustments',
      params: [],
      query: {},
      body: {
        amount: { required: true, type: 'integer', signed: true },
        forced: { required: false, type: 'boolean' },
        reason: { required: true, type: 'string' },
      },
      fields: { reason: { argument: 'words' } },
      idempotencyKey: true,
    };
    expect(option(commandOf(act, adjust), '--forced')?.flags).toBe('--forced');

    await parse(commandOf(act, adjust), ['--amount', '-500', '--forced', 'estorno', 'em', 'dobro']);
    await parse(commandOf(act, adjust), ['--amount=250', '--idempotency-key', 'k-1', 'cortesia']);

    expect(sent.map((call) => [call.body, call.headers])).toEqual([
      [{ amount: -500, forced: true, reason: 'estorno em dobro' }, undefined],
      [{ amount: 250, reason: 'cortesia' }, { 'idempotency-key': 'k-1' }],
    ]);
    // An operator command whose route does not honour the key offers no flag for it.
    expect(
      option(commandOf(act, { ...adjust, idempotencyKey: undefined }), '--idempotency-key'),
    ).toBeUndefined();
    await expect(parse(commandOf(act, adjust), ['--amount', '-1.5', 'x'])).rejects.toThrow(/whole number/);
    await expect(
      parse(
        commandOf(act, { ...adjust, body: { ...adjust.body, amount: { required: true, type: 'integer' } } }),
        ['--amount=-500', 'x'],
      ),
    ).rejects.toThrow(/whole number/);
  });
});

describe("the CLI's commands are those of the operation table", () => {
  const program = buildProgram({
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: readEnvironment({}),
  });
  const find = (path: string): Command | undefined =>
    path
      .split(' ')
      .reduce<Command | undefined>((at, name) => at?.commands.find((sub) => sub.name() === name), program);

  test.each(Object.entries(commandFacts))(
    '%s: its command takes the path ids as its first arguments, and offers each enum filter',
    (_operation, facts) => {
      const command = find(facts.command);
      expect(command).toBeDefined();
      expect(
        command!.registeredArguments.slice(0, facts.params.length).map((argument) => argument.name()),
      ).toEqual(facts.params.map((id) => facts.fields[id]?.value ?? id));
      for (const [name, field] of Object.entries(facts.query))
        if (field.values && !facts.fields[name]?.skip)
          expect(
            option(command!, `--${facts.fields[name]?.flag ?? name.replace(/_/g, '-')}`)?.argChoices,
          ).toEqual(facts.fields[name]?.choices ?? field.values);
    },
  );

  test('the filters of payments list and admin received-funds are the values the gateway accepts', () => {
    expect(option(find('payments list')!, '--status')?.argChoices).toEqual([...paymentStatuses]);
    expect(option(find('admin received-funds')!, '--kind')?.argChoices).toEqual([...receivedFundsKinds]);
  });
});
