import fc from 'fast-check';
import { Keypair } from '@solana/web3.js';
import { decodeBase58, encodeBase58 } from '../src/domain/base58';
import { formatRatio, parseRatio, rationalFromDecimal } from '../src/domain/rational';

describe('base58', () => {
  it('encodes a public key the way Solana prints it', () => {
    const key = Keypair.generate().publicKey;
    expect(encodeBase58(key.toBytes())).toBe(key.toBase58());
  });

  it('round-trips any bytes, leading zeros included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(decodeBase58(encodeBase58(bytes))).toEqual(bytes);
      }),
    );
  });
});

describe('stored quote ratio', () => {
  it('round-trips a rational exactly', () => {
    const rate = rationalFromDecimal('0.18345671');
    expect(parseRatio(formatRatio(rate))).toEqual(rate);
  });

  it('rejects text that is not numerator/denominator with a non-zero denominator', () => {
    for (const text of ['0.18', '1/0', '-1/2', '1/2/3', ''])
      expect(() => parseRatio(text)).toThrow(RangeError);
  });
});
