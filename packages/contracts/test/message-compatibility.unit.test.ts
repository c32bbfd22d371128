import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Joi from 'joi';
import {
  catalog,
  compatibilityBreaks,
  defineEvent,
  messageShapes,
  unacceptedBreaks,
  type MessageShapes,
  type ReleasedMessages,
} from '../src';

const released = JSON.parse(
  readFileSync(join(__dirname, '..', 'released-messages.json'), 'utf8'),
) as ReleasedMessages;

/** The shapes of one `sample.changed.v1` event with this payload schema. */
const shapes = (keys: Record<string, Joi.Schema>): MessageShapes =>
  messageShapes([defineEvent('sample.changed.v1', Joi.object(keys))]);

const base = {
  id: Joi.string().required(),
  status: Joi.string().valid('open', 'paid').required(),
  amount_centavos: Joi.number().integer().min(0).required(),
  note: Joi.string().allow(null),
};

describe('message compatibility across a rolling upgrade', () => {
  test('every message this commit sends and reads is compatible with the released ones, but for the breaks accepted in writing', () => {
    expect(released.released_at_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(unacceptedBreaks(released, messageShapes(catalog.values()))).toEqual([]);
  });

  test('every accepted break is still one, and says why', () => {
    const breaks = compatibilityBreaks(released.messages, messageShapes(catalog.values()));
    for (const accepted of released.accepted_breaks) {
      expect(breaks.filter((line) => line.startsWith(accepted.break))).not.toHaveLength(0);
      expect(accepted.why.length).toBeGreaterThan(20);
    }
  });

  test('a new optional field, even an object with required fields of its own, keeps a message compatible', () => {
    const later = shapes({
      ...base,
      refunded_centavos: Joi.number().integer(),
      settlement: Joi.object({ at: Joi.string().required() }),
    });
    expect(compatibilityBreaks(shapes(base), later)).toEqual([]);
  });

  test.each([
    ['a field removed', { ...base, note: undefined }, 'sample.changed.v1 note: removed within its version'],
    [
      'a field retyped',
      { ...base, amount_centavos: Joi.string().required() },
      'sample.changed.v1 amount_centavos: changed within its version',
    ],
    ['a required field made optional', { ...base, id: Joi.string() }, 'sample.changed.v1 id: changed'],
    [
      'an optional field made required',
      { ...base, note: Joi.string().allow(null).required() },
      'note: changed',
    ],
    [
      'an allowed value added',
      { ...base, status: Joi.string().valid('open', 'paid', 'refunded').required() },
      'status: changed',
    ],
    ['null no longer allowed', { ...base, note: Joi.string() }, 'note: changed'],
    ['a rule narrowed', { ...base, amount_centavos: Joi.number().integer().min(1).required() }, 'changed'],
    [
      'a required field added',
      { ...base, currency: Joi.string().required() },
      'sample.changed.v1 currency: added as required, but the released producers do not send it',
    ],
  ])('%s is a break', (_what, keys, expected) => {
    const later = shapes(
      Object.fromEntries(Object.entries(keys).filter(([, schema]) => schema !== undefined)) as Record<
        string,
        Joi.Schema
      >,
    );
    const breaks = compatibilityBreaks(shapes(base), later);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toContain(expected);
  });

  test('a released message version no longer read is a break', () => {
    expect(compatibilityBreaks(shapes(base), {})).toEqual([
      'sample.changed.v1: removed, but the released producers still send it during an upgrade',
    ]);
  });

  test("a command's result is held to the same rules", () => {
    const breaks = unacceptedBreaks(released, {
      ...messageShapes(catalog.values()),
      'payment.get.v1#result': {},
    });
    expect(breaks.some((line) => line.startsWith('payment.get.v1#result '))).toBe(true);
  });
});
