import type { PspStatement } from '@gateway/contracts';
import { refundedQuantity } from '../src/domain/posting-rules';
import { reconcile, type BookedMovement, type BooksView } from '../src/domain/reconciliation';

const NOW = new Date('2026-11-29T12:00:00Z');
const FROM = new Date('2026-11-28T12:00:00Z');
const GRACE_MS = 60_000;
const ago = (minutes: number): string => new Date(NOW.getTime() - minutes * 60_000).toISOString();

const movement = (reference: string, cash: number, kind = 'payment', minutes = 30): BookedMovement => ({
  reference,
  kind,
  cashPspCentavos: cash,
  createdAt: new Date(NOW.getTime() - minutes * 60_000),
});

function books(movements: BookedMovement[], extra: Partial<BooksView> = {}): BooksView {
  const byReference = new Map<string, BookedMovement[]>();
  for (const m of movements) byReference.set(m.reference, [...(byReference.get(m.reference) ?? []), m]);
  return {
    cashPspCentavos: movements.reduce((sum, m) => sum + m.cashPspCentavos, 0),
    byReference,
    referencedInPeriod: movements,
    tokenQuantities: new Map(),
    ...extra,
  };
}

function statement(parts: Partial<PspStatement>): PspStatement {
  return {
    from: FROM.toISOString(),
    to: NOW.toISOString(),
    balance_centavos: 0,
    read_at: NOW.toISOString(),
    received: [],
    sent: [],
    ...parts,
  };
}

const run = (psp: PspStatement, view: BooksView) =>
  reconcile({
    from: FROM,
    graceMs: GRACE_MS,
    pspOpeningCentavos: 0,
    statement: psp,
    wallet: null,
    books: view,
  });

const kinds = (items: Array<{ kind: string; reference: string | null }>) =>
  items.map((item) => [item.kind, item.reference]);

describe('the comparison of the books with the PSP', () => {
  test('Pix sent: one no journal names is a difference; one in processing is in flight and counted in the balance', () => {
    const psp = statement({
      balance_centavos: 10_000 - 300 - 200,
      received: [
        { end_to_end_id: 'E1', txid: 'tx1', amount_centavos: 10_000, paid_at: ago(30), returns: [] },
      ],
      sent: [
        {
          end_to_end_id: 'E2',
          id_envio: 'po1',
          amount_centavos: 300,
          status: 'REALIZADO',
          requested_at: ago(20),
          settled_at: ago(20),
        },
        {
          end_to_end_id: 'E3',
          id_envio: 'po2',
          amount_centavos: 200,
          status: 'EM_PROCESSAMENTO',
          requested_at: ago(10),
          settled_at: null,
        },
        {
          end_to_end_id: 'E4',
          id_envio: 'po3',
          amount_centavos: 999,
          status: 'NAO_REALIZADO',
          requested_at: ago(10),
          settled_at: null,
        },
      ],
    });
    const outcome = run(psp, books([movement('tx1', 10_000)]));
    expect(kinds(outcome.differences)).toEqual([
      ['sent_not_in_books', 'E2'],
      ['balance_mismatch', null],
    ]);
    expect(kinds(outcome.pending)).toEqual([['sent_not_in_books', 'E3']]);
    expect(outcome.pspSentCentavos).toBe(500);

    // Once the send is posted, only the one in flight remains, and it explains the balance.
    const posted = run(psp, books([movement('tx1', 10_000), movement('E2', -300, 'payout')]));
    expect(posted.differences).toEqual([]);
    expect(kinds(posted.pending)).toEqual([['sent_not_in_books', 'E3']]);
  });

  test('a devolução in processing is in flight; one returned long ago with no journal is a difference', () => {
    const psp = statement({
      balance_centavos: 10_000 - 1_000 - 500,
      received: [
        {
          end_to_end_id: 'E1',
          txid: 'tx1',
          amount_centavos: 10_000,
          paid_at: ago(30),
          returns: [
            {
              id: 'd1',
              rtr_id: 'D1',
              amount_centavos: 1_000,
              status: 'DEVOLVIDO',
              requested_at: ago(20),
              settled_at: ago(20),
            },
            {
              id: 'd2',
              rtr_id: 'D2',
              amount_centavos: 500,
              status: 'EM_PROCESSAMENTO',
              requested_at: ago(0),
              settled_at: null,
            },
          ],
        },
      ],
    });
    const outcome = run(psp, books([movement('tx1', 10_000)]));
    expect(kinds(outcome.differences)).toEqual([
      ['return_not_in_books', 'd1'],
      ['balance_mismatch', null],
    ]);
    expect(kinds(outcome.pending)).toEqual([['return_not_in_books', 'd2']]);
    expect(run(psp, books([movement('tx1', 10_000), movement('d1', -1_000, 'refund')])).differences).toEqual(
      [],
    );
  });

  test('another amount in the books, a journal the PSP does not list, and a Pix before the period', () => {
    const psp = statement({
      balance_centavos: 10_000 + 700,
      received: [
        { end_to_end_id: 'E1', txid: 'tx1', amount_centavos: 10_000, paid_at: ago(30), returns: [] },
        // Before the period and in no journal: the previous run's to report, not this one's.
        { end_to_end_id: 'E0', txid: 'tx0', amount_centavos: 700, paid_at: ago(25 * 60), returns: [] },
      ],
    });
    const outcome = run(psp, books([movement('tx1', 9_999), movement('txGhost', 701)]));
    expect(kinds(outcome.differences)).toEqual([
      ['received_amount_mismatch', 'tx1'],
      ['in_books_not_at_psp', 'txGhost'],
    ]);
    expect(outcome.differences[0]).toMatchObject({ rail_centavos: 10_000, books_centavos: 9_999 });
    expect(outcome.pspReceivedCentavos).toBe(10_000);
  });

  test('two Pix on one txid (a payment, then an excess or late Pix): compared as one charge, never the payment twice', () => {
    const psp = statement({
      balance_centavos: 10_000 + 2_500 + 4_000,
      received: [
        { end_to_end_id: 'E1', txid: 'tx1', amount_centavos: 10_000, paid_at: ago(30), returns: [] },
        { end_to_end_id: 'E2', txid: 'tx1', amount_centavos: 2_500, paid_at: ago(20), returns: [] },
        // A Pix to the key, no charge: its own group, named by its endToEndId.
        { end_to_end_id: 'E3', txid: null, amount_centavos: 4_000, paid_at: ago(10), returns: [] },
      ],
    });
    const payment = movement('tx1', 10_000);
    const excess = movement('E2', 2_500, 'funds_received');
    const toKey = movement('E3', 4_000, 'funds_received');
    expect(run(psp, books([payment, excess, toKey])).differences).toEqual([]);

    // The excess booked with another amount: one difference for the charge, with both sums.
    const wrong = run(psp, books([payment, movement('E2', 2_400, 'funds_received'), toKey]));
    expect(kinds(wrong.differences)).toEqual([
      ['received_amount_mismatch', 'tx1'],
      ['balance_mismatch', null],
    ]);
    expect(wrong.differences[0]).toMatchObject({ rail_centavos: 12_500, books_centavos: 12_400 });

    // The excess not booked at all: a difference once out of the grace window, in flight within it.
    const missing = run(psp, books([payment, toKey], { cashPspCentavos: 14_000 }));
    expect(kinds(missing.differences)).toEqual([
      ['received_amount_mismatch', 'tx1'],
      ['balance_mismatch', null],
    ]);
    const young = statement({
      ...psp,
      received: [
        psp.received[0]!,
        { ...psp.received[1]!, paid_at: new Date(NOW.getTime() - 1_000).toISOString() },
      ],
      balance_centavos: 12_500,
    });
    const inFlight = run(young, books([payment], { cashPspCentavos: 10_000 }));
    expect(inFlight.differences).toEqual([]);
    expect(kinds(inFlight.pending)).toEqual([['received_not_in_books', 'tx1']]);
  });

  test('an opening balance the books began after is counted in', () => {
    const psp = statement({ balance_centavos: 5_000 });
    const withOpening = reconcile({
      from: FROM,
      graceMs: GRACE_MS,
      pspOpeningCentavos: 5_000,
      statement: psp,
      wallet: null,
      books: books([]),
    });
    expect(withOpening.differences).toEqual([]);
    expect(kinds(run(psp, books([])).differences)).toEqual([['balance_mismatch', null]]);
  });
});

describe("a refund's tokens", () => {
  test("its share of the payment's quantity, rounded down, leaving the holding; unknown without a quantity", () => {
    expect(refundedQuantity({ grossCentavos: 5_000, quantityBaseUnits: '1000000' }, 2_500)).toBe('-500000');
    expect(refundedQuantity({ grossCentavos: 3, quantityBaseUnits: '10' }, 1)).toBe('-3');
    expect(refundedQuantity(null, 1_000)).toBeNull();
  });
});
