import type Joi from 'joi';
import type { MessageDefinition } from './message';

/**
 * The shape of every message of a release, field by field, as JSON: what a later release is compared with, so that a
 * rolling upgrade (both releases' replicas reading each other's messages) never meets a message it refuses. The rules
 * are in docs/adr/0038-message-compatibility.md.
 */
export type MessageShapes = Record<string, Record<string, FieldContract>>;

/** A field's contract without its children: its type, whether required, its flags, allowed values and rules. */
export type FieldContract = Record<string, unknown>;

interface Described {
  type?: string;
  flags?: Record<string, unknown>;
  keys?: Record<string, Described>;
  items?: Described[];
  [other: string]: unknown;
}

function contractOf(node: Described): FieldContract {
  const { keys: _keys, items: _items, flags, allow, ...rest } = node;
  const { presence, ...otherFlags } = flags ?? {};
  // Through JSON, as it is stored: what describe() gives that JSON cannot hold (a function) is not compared.
  return JSON.parse(
    JSON.stringify({
      ...rest,
      required: presence === 'required',
      flags: otherFlags,
      ...(Array.isArray(allow) ? { allow: allow.map(String).sort() } : {}),
    }),
  ) as FieldContract;
}

/** Every field of a schema by its path (`payment.amount_centavos`, `items[]`), the schema itself as `.`. */
function fieldsOf(
  node: Described,
  path: string,
  into: Record<string, FieldContract>,
): Record<string, FieldContract> {
  into[path] = contractOf(node);
  for (const [key, child] of Object.entries(node.keys ?? {}))
    fieldsOf(child, path === '.' ? key : `${path}.${key}`, into);
  (node.items ?? []).forEach((item, i) => fieldsOf(item, `${path}[${i}]`, into));
  return into;
}

function shapeOf(schema: Joi.Schema): Record<string, FieldContract> {
  return fieldsOf(schema.describe() as Described, '.', {});
}

/** The shapes of a catalogue's messages: each payload under its name, each command's result under `name#result`. */
export function messageShapes(messages: Iterable<MessageDefinition<unknown>>): MessageShapes {
  const shapes: MessageShapes = {};
  for (const message of [...messages].sort((a, b) => a.name.localeCompare(b.name))) {
    shapes[message.name] = shapeOf(message.schema);
    if (message.resultSchema) shapes[`${message.name}#result`] = shapeOf(message.resultSchema);
  }
  return shapes;
}

/** `payment.amount_centavos` -> `payment`, `items[0]` -> `items`, `status` -> `.`. */
function parentPath(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut <= 0 ? '.' : path.slice(0, cut);
}

const same = (a: FieldContract, b: FieldContract): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What a release would break in a rolling upgrade from `released`, one sentence each (none: compatible). Within a
 * message version a field may be added, optional, and nothing else changes: a field removed, retyped, made required
 * or optional, or given other allowed values or rules would be refused by one release's readers from the other's
 * writers. A message version the released one sent must still be read.
 */
export function compatibilityBreaks(released: MessageShapes, current: MessageShapes): string[] {
  const breaks: string[] = [];
  for (const [name, releasedFields] of Object.entries(released)) {
    const currentFields = current[name];
    if (!currentFields) {
      breaks.push(`${name}: removed, but the released producers still send it during an upgrade`);
      continue;
    }
    for (const [path, before] of Object.entries(releasedFields)) {
      const now = currentFields[path];
      if (now === undefined) breaks.push(`${name} ${path}: removed within its version`);
      else if (!same(now, before))
        breaks.push(
          `${name} ${path}: changed within its version (${JSON.stringify(before)} -> ${JSON.stringify(now)})`,
        );
    }
    for (const [path, now] of Object.entries(currentFields)) {
      // A new field inside a new optional field is the parent's to judge.
      const parentIsNew = releasedFields[parentPath(path)] === undefined;
      if (releasedFields[path] === undefined && !parentIsNew && now.required === true)
        breaks.push(`${name} ${path}: added as required, but the released producers do not send it`);
    }
  }
  return breaks;
}

/** A change a release ships knowingly, with why and what a rolling upgrade from the released one meets. */
export interface AcceptedBreak {
  /** The start of the sentence `compatibilityBreaks` says (`event.list.v1 type: changed`). */
  break: string;
  why: string;
}

/** What `released-messages.json` holds: the released shapes and the breaks accepted since that release. */
export interface ReleasedMessages {
  released_at_commit: string;
  accepted_breaks: AcceptedBreak[];
  messages: MessageShapes;
}

/** The breaks no accepted one covers; none is what the release check wants. */
export function unacceptedBreaks(released: ReleasedMessages, current: MessageShapes): string[] {
  return compatibilityBreaks(released.messages, current).filter(
    (line) => !released.accepted_breaks.some((accepted) => line.startsWith(accepted.break)),
  );
}

/**
 * `released-messages.json` for a release, one line per field, so its review reads as a list of field contracts. A new
 * release starts with no accepted break: it is the new baseline.
 */
export function renderReleasedMessages(commit: string, shapes: MessageShapes): string {
  const messages = Object.entries(shapes).map(([name, fields]) => {
    const lines = Object.entries(fields).map(
      ([path, field]) => `      ${JSON.stringify(path)}: ${JSON.stringify(field)}`,
    );
    return `    ${JSON.stringify(name)}: {\n${lines.join(',\n')}\n    }`;
  });
  return `{\n  "released_at_commit": ${JSON.stringify(commit)},\n  "accepted_breaks": [],\n  "messages": {\n${messages.join(',\n')}\n  }\n}\n`;
}
