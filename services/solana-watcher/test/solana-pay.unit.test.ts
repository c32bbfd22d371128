import { Keypair } from '@solana/web3.js';
import {
  InvalidTransferRequestError,
  buildTransferRequestUrl,
  parseTransferRequestUrl,
  type TransferRequest,
} from '../src/domain/solana-pay';

function request(overrides: Partial<TransferRequest> = {}): TransferRequest {
  return {
    recipient: Keypair.generate().publicKey.toBase58(),
    amount: 1_500_000n,
    decimals: 6,
    splToken: Keypair.generate().publicKey.toBase58(),
    reference: Keypair.generate().publicKey.toBase58(),
    label: 'Loja da Maria',
    message: 'Pedido #42 – café & pão',
    ...overrides,
  };
}

describe('Solana Pay transfer request URL', () => {
  it('round-trips every field through build and parse', () => {
    const original = request({ memo: 'pay_abc 123' });
    const parsed = parseTransferRequestUrl(buildTransferRequestUrl(original), original.decimals);
    expect(parsed).toEqual({
      recipient: original.recipient,
      amount: original.amount,
      splToken: original.splToken,
      references: [original.reference],
      label: original.label,
      message: original.message,
      memo: original.memo,
    });
  });

  it('encodes spaces as %20, never +', () => {
    const url = buildTransferRequestUrl(request({ label: 'a b', message: 'c+d' }));
    expect(url).toContain('label=a%20b');
    expect(url).toContain('message=c%2Bd');
    expect(url).not.toMatch(/=[^&]*\+/);
  });

  it('starts with solana:<recipient> and puts amount, spl-token, reference, label, message in that order', () => {
    const original = request();
    const url = buildTransferRequestUrl(original);
    const names = new URL(url).search
      .slice(1)
      .split('&')
      .map((pair) => pair.split('=')[0]);
    expect(url.startsWith(`solana:${original.recipient}?`)).toBe(true);
    expect(names).toEqual(['amount', 'spl-token', 'reference', 'label', 'message']);
  });

  it.each([
    [1n, 6, '0.000001'],
    [1_000_000n, 6, '1'],
    [1_500_000n, 6, '1.5'],
    [10n ** 27n, 6, '1000000000000000000000'],
    [123_456_789n, 6, '123.456789'],
    [5n, 0, '5'],
  ])(
    'writes %s base units with %s decimals as amount=%s (no exponent, zeros trimmed)',
    (amount, decimals, text) => {
      const url = buildTransferRequestUrl(request({ amount, decimals }));
      const amountParam = new URL(url).searchParams.get('amount');
      expect(amountParam).toBe(text);
      expect(amountParam).not.toMatch(/e/i);
      expect(parseTransferRequestUrl(url, decimals).amount).toBe(amount);
    },
  );

  it('rejects an amount with more fraction digits than the token has', () => {
    const url = buildTransferRequestUrl(request({ amount: 1n, decimals: 6 }));
    expect(() => parseTransferRequestUrl(url, 5)).toThrow(InvalidTransferRequestError);
  });

  it('rejects an amount in scientific notation', () => {
    const url = buildTransferRequestUrl(request()).replace(/amount=[^&]+/, 'amount=1e-6');
    expect(() => parseTransferRequestUrl(url, 6)).toThrow(InvalidTransferRequestError);
  });

  it('refuses to build a request whose reference is not a 32-byte base58 key', () => {
    expect(() => buildTransferRequestUrl(request({ reference: 'not-a-key' }))).toThrow(
      InvalidTransferRequestError,
    );
    expect(() => buildTransferRequestUrl(request({ reference: '1111' }))).toThrow(
      InvalidTransferRequestError,
    );
  });

  it('keeps every reference of a URL, in order', () => {
    const extra = Keypair.generate().publicKey.toBase58();
    const original = request();
    const parsed = parseTransferRequestUrl(`${buildTransferRequestUrl(original)}&reference=${extra}`, 6);
    expect(parsed.references).toEqual([original.reference, extra]);
  });
});
