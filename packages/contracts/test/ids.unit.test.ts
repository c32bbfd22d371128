import { newPublicId, randomIdText } from '../src/ids';

describe('public ids and trace ids', () => {
  it('makes a public id of the prefix and 24 url-safe characters', () => {
    expect(newPublicId('pay')).toMatch(/^pay_[A-Za-z0-9_-]{24}$/);
  });

  it('never hands out the same random bytes twice, also across refills of the pool', () => {
    // 4 KiB of pool is 256 trace ids: 2,000 of them cross several refills.
    const ids = Array.from({ length: 2000 }, () => randomIdText(16, 'hex'));
    expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every requested size, whatever is left in the pool', () => {
    for (const bytes of [1, 7, 8, 16, 18, 33])
      expect(Buffer.from(randomIdText(bytes, 'hex'), 'hex')).toHaveLength(bytes);
  });
});
