import { Argument, Command, Option } from 'commander';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '@gateway/contracts';
import type { Gateway, Page, PagedList } from '@gateway/sdk';
import { generatedCommands } from '../generated/commands';
import { signedWholeNumber, wholeNumber, type Act, type Context } from '../context';
import { formatRecord, formatTable } from '../output';

/** A query or body field as the document publishes it. */
export interface FieldFacts {
  readonly required: boolean;
  readonly type: string;
  readonly values?: readonly unknown[];
  /** A number that may be negative (an adjustment's amount). */
  readonly signed?: boolean;
}

/** The entry's own choices for a field of its command (the gateway's `CliField`, as generated). */
export interface FieldChoices {
  readonly flag?: string;
  readonly value?: string;
  readonly description?: string;
  readonly default?: string;
  readonly choices?: readonly string[];
  readonly argument?: 'one' | 'words';
  readonly when?: Readonly<Record<string, string>>;
  readonly fixed?: string;
  readonly skip?: boolean;
}

/** What packages/cli/src/generated/commands.ts says of one command (scripts/generate-cli-commands.ts writes it). */
export interface CommandFacts {
  readonly command: string;
  readonly description: string;
  readonly help?: string;
  readonly dashArguments?: boolean;
  /** The flags' order when not the document's. */
  readonly order?: readonly string[];
  /** An operator command whose route honours `Idempotency-Key`. */
  readonly idempotencyKey?: boolean;
  readonly area: string;
  /** The SDK method a merchant command calls: `payments.create` (`gateway.payments.create`). */
  readonly sdk?: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** The path ids, in the path's order. */
  readonly params: readonly string[];
  readonly query: Readonly<Record<string, FieldFacts>>;
  readonly body?: Readonly<Record<string, FieldFacts>>;
  readonly fields: Readonly<Record<string, FieldChoices>>;
}

/** A method of the SDK's client by its namespace and name: `payments.create`. */
export type SdkPath = { [N in keyof Gateway]: `${N & string}.${keyof Gateway[N] & string}` }[keyof Gateway];

/** An operation of the gateway's table that has a CLI command. */
export type OperationId = keyof typeof generatedCommands;
// The type check fails when a command names a method the SDK does not have.
export const commandFacts: Readonly<Record<OperationId, CommandFacts>> = generatedCommands satisfies Readonly<
  Record<string, { readonly command: string; readonly sdk?: SdkPath }>
>;

type Facts = typeof generatedCommands;
/** An operation of the merchant API (`api`, `sandbox`) that has a command: it is called through the SDK. */
export type MerchantOperation = {
  [O in OperationId]: Facts[O]['area'] extends 'admin' ? never : O;
}[OperationId];

/** The SDK's method for an operation: `(gateway) => gateway.payments.create`. */
export type SdkMethod = (gateway: Gateway) => (...args: never[]) => unknown;

/** The SDK method a merchant command's facts name (`payments.create`), on the client it is given. */
export function sdkMethod(facts: CommandFacts): SdkMethod {
  if (facts.sdk === undefined) throw new Error(`${facts.command}: no SDK method calls it`);
  const [namespace, name] = facts.sdk.split('.') as [string, string];
  return (gateway) =>
    (gateway as unknown as Record<string, Record<string, (...args: never[]) => unknown>>)[namespace]![name]!;
}

/** The text a command shows of an answer that is not a plain record or page. */
export type View = (answer: never) => string;

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

/** A page as a table of `columns`, with a hint to the next page (and to --all, where the command has it). */
export function pageText(columns: readonly string[], all: boolean) {
  return ({ data, has_more }: { data: object[]; has_more: boolean }): string => {
    const last = data.at(-1) as Record<string, unknown> | undefined;
    const idKey = last && Object.keys(last).find((key) => key.endsWith('_id') || key === 'id');
    const more =
      has_more && idKey ? `\n(more: --starting-after ${String(last[idKey])}${all ? ', or --all' : ''})` : '';
    return `${formatTable(data, columns)}${more}`;
  };
}

/** One page (with a hint to the next), or with --all every item of every page. */
async function printList(
  context: Context,
  list: (page: { limit?: number; starting_after?: string }) => PagedList<Page<object>, object>,
  flags: { limit?: number; startingAfter?: string; all?: boolean },
): Promise<void> {
  const page = { limit: flags.limit, starting_after: flags.startingAfter };
  if (flags.all) {
    const items: object[] = [];
    for await (const item of list(page)) items.push(item);
    context.output.result(items, (all) => formatTable(all, COLUMNS));
    return;
  }
  context.output.result(await list(page), pageText(COLUMNS, true));
}

const PAGE_FIELDS = ['limit', 'starting_after'];
const IDEMPOTENCY_KEY = 'dedupe key (one is generated otherwise)';

const kebab = (name: string) => name.replace(/[_.]/g, '-');

/** `{ a: { b: value } }` for `a.b`; an absent value leaves the body as it is. */
function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  if (value === undefined) return;
  const parts = path.split('.');
  let target = body;
  for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
  target[parts.at(-1)!] = value;
}

/** The help of a flag whose entry gives none: a list's values, or a filter's. */
function defaultDescription(name: string, facts: FieldFacts, inQuery: boolean): string | undefined {
  if (facts.type === 'array' && facts.values) return `comma-separated, of: ${facts.values.join(', ')}`;
  if (inQuery && facts.values) return `only this ${name}`;
  return undefined;
}

/** A command's flag for a query or body field, and where its parsed value goes. */
interface Flag {
  name: string;
  inQuery: boolean;
  attribute: string;
  list: boolean;
}

/** How an integer field's text is read: a whole number, negative too where the field allows it. */
const integerParser = (field: FieldFacts) => (field.signed ? signedWholeNumber : wholeNumber);

/** The path ids, then the body fields the entry takes as arguments (`words`: every word left). */
function addArguments(command: Command, facts: CommandFacts, own: (field: string) => FieldChoices): string[] {
  for (const id of facts.params)
    command.addArgument(new Argument(`<${own(id).value ?? id}>`, own(id).description));
  const body = facts.body ?? {};
  const bodyArguments = Object.keys(body).filter((field) => own(field).argument !== undefined);
  for (const field of bodyArguments) {
    const label = `${own(field).value ?? field}${own(field).argument === 'words' ? '...' : ''}`;
    const argument = new Argument(
      body[field]!.required ? `<${label}>` : `[${label}]`,
      own(field).description,
    );
    if (body[field]!.type === 'integer') argument.argParser(integerParser(body[field]!));
    command.addArgument(argument);
  }
  return bodyArguments;
}

/**
 * A flag per query or body field that is not an argument, a page's, an object, fixed or left out: in the entry's
 * `order` when it gives one, else (and after it) in the document's.
 */
function addFlags(
  command: Command,
  facts: CommandFacts,
  own: (field: string) => FieldChoices,
  paged: boolean,
): Flag[] {
  const candidates = new Map<string, { facts: FieldFacts; inQuery: boolean }>();
  for (const [name, field] of Object.entries(facts.query))
    if (!(paged && PAGE_FIELDS.includes(name))) candidates.set(name, { facts: field, inQuery: true });
  for (const [name, field] of Object.entries(facts.body ?? {}))
    if (field.type !== 'object' && own(name).argument === undefined && own(name).fixed === undefined)
      candidates.set(name, { facts: field, inQuery: false });
  const ordered = [...new Set([...(facts.order ?? []), ...candidates.keys()])].filter(
    (name) => candidates.has(name) && !own(name).skip,
  );
  return ordered.map((name) => {
    const { facts: field, inQuery } = candidates.get(name)!;
    const choices = own(name);
    // A boolean is a switch: true when given, left out otherwise.
    const value = field.type === 'boolean' ? '' : ` <${choices.value ?? name.split('.').at(-1)}>`;
    const option = new Option(
      `--${choices.flag ?? kebab(name)}${value}`,
      choices.description ?? defaultDescription(name, field, inQuery),
    );
    if (field.type === 'integer') option.argParser(integerParser(field));
    const values = choices.choices ?? field.values;
    if (values && field.type !== 'array') option.choices(values.map(String));
    if (field.required) option.makeOptionMandatory();
    if (choices.default !== undefined) option.default(choices.default);
    command.addOption(option);
    return { name, inQuery, attribute: option.attributeName(), list: field.type === 'array' };
  });
}

/** The request the parsed arguments and flags make: the path ids, the query's filters, the body. */
function requestOf(
  facts: CommandFacts,
  own: (field: string) => FieldChoices,
  bodyArguments: readonly string[],
  flags: readonly Flag[],
  args: readonly unknown[],
): { ids: string[]; query: Record<string, unknown>; body: Record<string, unknown> } {
  const ids = facts.params.map((_id, index) => args[index] as string);
  const given = args[ids.length + bodyArguments.length] as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  bodyArguments.forEach((field, index) => {
    const value = args[ids.length + index];
    values[field] = Array.isArray(value) ? (value.length > 0 ? value.join(' ') : undefined) : value;
  });
  const query: Record<string, unknown> = {};
  for (const flag of flags) {
    const value = given[flag.attribute];
    const parsed = flag.list && typeof value === 'string' ? value.split(',') : value;
    if (flag.inQuery) query[flag.name] = parsed;
    else values[flag.name] = parsed;
  }
  // A field with a `when` is sent only when the body's other fields have those values.
  const applies = (field: string) =>
    Object.entries(own(field).when ?? {}).every(([other, value]) => values[other] === value);
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) if (applies(field)) setPath(body, field, value);
  for (const [field, choices] of Object.entries(facts.fields))
    if (choices.fixed !== undefined && applies(field)) setPath(body, field, choices.fixed);
  return { ids, query, body };
}

/**
 * The command of one operation, computed from its facts: `<name> <path ids...> <body arguments...>` and a flag for each
 * other query or body field (`--<field-in-kebab-case> <field>`, mandatory when required, a whole number when an
 * integer, one of its values when it has a fixed set, a comma-separated list when an array; the entry names, describes
 * and defaults it otherwise); a list of pages has `--limit` and `--starting-after` (and `--all` through the SDK), a
 * merchant POST with a body `--idempotency-key`. A merchant command calls its SDK method (`sdk`, by default the one
 * its facts name), an operator one the operator API; the answer is shown by `view`, else as a record (a page as a
 * table).
 */
export function commandOf(
  act: Act,
  facts: CommandFacts,
  how: { sdk?: SdkMethod; view?: View } = {},
): Command {
  const operator = facts.area === 'admin';
  const { sdk = operator ? undefined : sdkMethod(facts), view } = how;
  const own = (field: string): FieldChoices => facts.fields[field] ?? {};
  const paged = facts.method === 'GET' && PAGE_FIELDS.every((field) => field in facts.query);
  const command = new Command(facts.command.split(' ')[1]).description(facts.description);
  const bodyArguments = addArguments(command, facts, own);
  const flags = addFlags(command, facts, own, paged);
  if (!operator && facts.method === 'POST' && facts.body !== undefined)
    command.option('--idempotency-key <key>', IDEMPOTENCY_KEY);
  if (operator && facts.idempotencyKey)
    command.option('--idempotency-key <key>', 'dedupe key: the same request again answers the first one');
  if (paged) {
    command
      .option(
        '--limit <n>',
        own('limit').description ??
          `items per page, 1 to ${PAGE_LIMIT_MAX} (the gateway defaults to ${PAGE_LIMIT_DEFAULT})`,
        wholeNumber,
      )
      .option('--starting-after <id>', own('starting_after').description ?? 'the page after this id');
    if (!operator) command.option('--all', 'every page, fetched one after another');
  }
  if (facts.dashArguments) command.allowUnknownOption();
  if (facts.help) command.addHelpText('after', `\n${facts.help}`);

  command.action(
    act(async (context: Context, ...args: unknown[]) => {
      const { ids, query, body } = requestOf(facts, own, bodyArguments, flags, args);
      const given = args.at(-1) as { limit?: number; startingAfter?: string; idempotencyKey?: string };
      const page = { limit: given.limit, starting_after: given.startingAfter };
      if (operator) {
        const search = new URLSearchParams();
        for (const [name, value] of Object.entries({ ...query, ...(paged ? page : {}) }))
          if (value !== undefined) search.set(name, String(value));
        const path = facts.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
          encodeURIComponent(ids[facts.params.indexOf(name)]!),
        );
        const answer = await context.admin(
          facts.method,
          search.toString() === '' ? path : `${path}?${search.toString()}`,
          facts.body ? body : undefined,
          given.idempotencyKey === undefined ? {} : { 'idempotency-key': given.idempotencyKey },
        );
        context.output.result(answer, (view ?? (paged ? pageText(COLUMNS, false) : formatRecord)) as Show);
        return;
      }
      const method = sdk!(context.gateway()) as (...input: unknown[]) => unknown;
      if (paged) {
        const list = (pageParams: object) => method(...ids, { ...query, ...pageParams });
        await printList(context, list as Parameters<typeof printList>[1], given);
        return;
      }
      const input: unknown[] = facts.body
        ? [body, { idempotencyKey: given.idempotencyKey }]
        : Object.keys(facts.query).length > 0
          ? [query]
          : [];
      const answer = await (method(...ids, ...input) as Promise<object>);
      context.output.result(answer, (view ?? formatRecord) as Show);
    }),
  );
  return command;
}

type Show = (answer: object) => string;

/**
 * The commands of a group (`payments`, `admin`) built from the table's facts, added to `group` in the table's order (or
 * in `order`, a command it does not name coming after, in the table's order), with the group's own commands (`wait`)
 * each right after the command it names.
 */
export function tableGroup(
  act: Act,
  group: Command,
  spec: {
    order?: readonly string[];
    own?: Array<{ command: Command; after: string }>;
    how?: (operation: OperationId) => { sdk?: SdkMethod; view?: View };
  },
): Command {
  const commands = new Map<string, Command>();
  for (const [operation, facts] of Object.entries(commandFacts) as Array<[OperationId, CommandFacts]>)
    if (facts.command.split(' ')[0] === group.name()) {
      const command = commandOf(act, facts, spec.how?.(operation));
      commands.set(command.name(), command);
    }
  const names = [
    ...new Set([...(spec.order ?? []).filter((name) => commands.has(name)), ...commands.keys()]),
  ];
  for (const { command, after } of spec.own ?? []) {
    const at = names.indexOf(after);
    if (at === -1) throw new Error(`${group.name()} ${command.name()}: the group has no command ${after}`);
    names.splice(at + 1, 0, command.name());
    commands.set(command.name(), command);
  }
  for (const name of names) group.addCommand(commands.get(name)!);
  return group;
}
