import { applyTransfer, expiryReason, unappliedReason, type RequestState } from '../src/domain/settlement';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

const EXPIRES_AT = new Date('2030-01-01T12:00:00.500Z');
/** Unix seconds of a block inside the window. */
const IN_WINDOW = Math.floor(EXPIRES_AT.getTime() / 1000) - 60;

function open(overrides: Partial<RequestState> = {}): RequestState {
  return {
    status: 'open',
    mint: USDC,
    amount: 1_000_000n,
    received: 0n,
    expiresAt: EXPIRES_AT,
    ...overrides,
  };
}

describe('applyTransfer', () => {
  it('a partial transfer to an open request adds to what was received without settling', () => {
    expect(
      applyTransfer(open(), { kind: 'received', mint: USDC, amount: 400_000n, blockTime: IN_WINDOW }),
    ).toEqual({
      appliedTo: 'payment',
      received: 400_000n,
      settles: false,
      excess: 0n,
    });
  });

  it('the transfer completing the amount settles, with the excess beyond it', () => {
    expect(
      applyTransfer(open({ received: 400_000n }), {
        kind: 'received',
        mint: USDC,
        amount: 700_000n,
        blockTime: IN_WINDOW,
      }),
    ).toEqual({ appliedTo: 'payment', received: 1_100_000n, settles: true, excess: 100_000n });
  });

  it('an exact payment settles with no excess', () => {
    expect(
      applyTransfer(open(), { kind: 'received', mint: USDC, amount: 1_000_000n, blockTime: IN_WINDOW }),
    ).toMatchObject({
      settles: true,
      excess: 0n,
    });
  });

  it('another accepted token than the request’s is wrong_mint and changes nothing', () => {
    expect(
      applyTransfer(open(), { kind: 'received', mint: USDT, amount: 1_000_000n, blockTime: IN_WINDOW }),
    ).toEqual({
      appliedTo: 'wrong_mint',
      received: 0n,
      settles: false,
      excess: 0n,
    });
  });

  it('a transfer the validator flagged as wrong_mint stays wrong_mint even on the right mint', () => {
    expect(
      applyTransfer(open(), { kind: 'wrong_mint', mint: USDC, amount: 5n, blockTime: IN_WINDOW }).appliedTo,
    ).toBe('wrong_mint');
  });

  it.each([['settled' as const], ['expired' as const], ['underpaid' as const], ['failed' as const]])(
    'a transfer to a %s request is late',
    (status) => {
      expect(
        applyTransfer(open({ status }), { kind: 'received', mint: USDC, amount: 5n, blockTime: IN_WINDOW }),
      ).toMatchObject({
        appliedTo: 'late',
        settles: false,
      });
    },
  );

  it('a transfer whose block landed after the window is late even while the request is still open', () => {
    const after = Math.floor(EXPIRES_AT.getTime() / 1000) + 1;
    expect(
      applyTransfer(open(), { kind: 'received', mint: USDC, amount: 1_000_000n, blockTime: after }),
    ).toEqual({
      appliedTo: 'late',
      received: 0n,
      settles: false,
      excess: 0n,
    });
  });

  it('a transfer in the block second the window ends, or with no block time known, still counts', () => {
    const lastSecond = Math.floor(EXPIRES_AT.getTime() / 1000);
    for (const blockTime of [lastSecond, null]) {
      expect(
        applyTransfer(open(), { kind: 'received', mint: USDC, amount: 1_000_000n, blockTime }).appliedTo,
      ).toBe('payment');
    }
  });

  it('a transfer to a superseded request is recorded as superseded', () => {
    expect(
      applyTransfer(open({ status: 'superseded' }), {
        kind: 'received',
        mint: USDC,
        amount: 5n,
        blockTime: IN_WINDOW,
      }).appliedTo,
    ).toBe('superseded');
  });
});

describe('expiryReason', () => {
  it('nothing received closes as expired, something received as underpaid', () => {
    expect(expiryReason(0n)).toBe('expired');
    expect(expiryReason(1n)).toBe('underpaid');
  });
});

describe('unappliedReason', () => {
  it.each([
    ['late' as const, 'settled' as const, 'after_settlement'],
    ['late' as const, 'expired' as const, 'after_expiry'],
    ['late' as const, 'underpaid' as const, 'after_expiry'],
    ['late' as const, 'failed' as const, 'after_expiry'],
    ['superseded' as const, 'superseded' as const, 'superseded'],
    ['wrong_mint' as const, 'open' as const, 'wrong_mint'],
    ['wrong_mint' as const, 'expired' as const, 'wrong_mint'],
  ])('a transfer recorded as %s on a %s request is reported as %s', (appliedTo, status, reason) => {
    expect(unappliedReason(appliedTo, status)).toBe(reason);
  });
});
