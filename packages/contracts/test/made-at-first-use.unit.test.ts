import { madeAtFirstUse } from '../src';

describe('madeAtFirstUse', () => {
  test('makes nothing until asked, then makes once and answers the same value every time (undefined too)', () => {
    let made = 0;
    const nothing = madeAtFirstUse(() => {
      made += 1;
      return undefined;
    });
    expect(made).toBe(0);
    expect([nothing(), nothing(), nothing()]).toEqual([undefined, undefined, undefined]);
    expect(made).toBe(1);
  });

  test('a make that throws is tried again at the next call', () => {
    let calls = 0;
    const flaky = madeAtFirstUse(() => {
      calls += 1;
      if (calls === 1) throw new Error('not yet');
      return 'ready';
    });
    expect(() => flaky()).toThrow('not yet');
    expect(flaky()).toBe('ready');
    expect(flaky()).toBe('ready');
    expect(calls).toBe(2);
  });
});
