import type {
  PspStatement,
  ReconciliationDifferenceKind,
  ReconciliationItem,
  TokenHolding,
  WalletBalances,
} from '@gateway/contracts';

/**
 * The comparison of the books with the rails (docs/operating.md#reconciliation-of-the-books), pure: what the PSP and the chain say,
 * what the books say as of the moment the rails were read, and the grace window within which a movement the books
 * have not posted yet is money in flight (reported as pending), not a difference. Nothing here corrects anything.
 */

/** A journal that names a rail movement, with what it moved in or out of `cash_psp` (debit positive). */
export interface BookedMovement {
  reference: string;
  kind: string;
  cashPspCentavos: number;
  createdAt: Date;
}

export interface BooksView {
  /** `cash_psp`'s balance (its entries summed, debits positive) as of the rails' reading. */
  cashPspCentavos: number;
  /** Journals naming each of the statement's references, as of the rails' reading. */
  byReference: ReadonlyMap<string, readonly BookedMovement[]>;
  /** Journals that name a reference and move `cash_psp`, posted in [from, read − grace]. */
  referencedInPeriod: readonly BookedMovement[];
  /** Each token account's quantity in base units (`tokens:<token>` -> sum), as of the chain's reading. */
  tokenQuantities: ReadonlyMap<string, bigint>;
}

export interface ReconciliationInput {
  from: Date;
  graceMs: number;
  /** What the PSP account held before the gateway's books began (config; 0 for an account opened for it). */
  pspOpeningCentavos: number;
  statement: PspStatement | null;
  wallet: WalletBalances | null;
  books: BooksView;
}

export interface ReconciliationOutcome {
  differences: ReconciliationItem[];
  pending: ReconciliationItem[];
  pspReceivedCentavos: number | null;
  pspSentCentavos: number | null;
  tokens: TokenHolding[];
}

/** Every reference the PSP statement names: what a journal's reference must be one of. */
export function statementReferences(statement: PspStatement): string[] {
  const references = new Set<string>();
  for (const pix of statement.received) {
    references.add(pix.end_to_end_id);
    if (pix.txid !== null) references.add(pix.txid);
    for (const devolucao of pix.returns) {
      references.add(devolucao.id);
      references.add(devolucao.rtr_id);
    }
  }
  for (const envio of statement.sent) {
    references.add(envio.end_to_end_id);
    references.add(envio.id_envio);
  }
  return [...references];
}

interface ItemParts {
  kind: ReconciliationDifferenceKind;
  rail: 'pix' | 'solana';
  reference: string | null;
  railCentavos?: number | null;
  booksCentavos?: number | null;
  railBaseUnits?: bigint | null;
  booksBaseUnits?: bigint | null;
  occurredAt?: string | null;
  detail: string;
}

function item(parts: ItemParts): ReconciliationItem {
  return {
    kind: parts.kind,
    rail: parts.rail,
    reference: parts.reference,
    rail_centavos: parts.railCentavos ?? null,
    books_centavos: parts.booksCentavos ?? null,
    rail_base_units: parts.railBaseUnits == null ? null : parts.railBaseUnits.toString(),
    books_base_units: parts.booksBaseUnits == null ? null : parts.booksBaseUnits.toString(),
    occurred_at: parts.occurredAt ?? null,
    detail: parts.detail,
  };
}

/** The journals naming any of `references` (each once). */
function bookedUnder(books: BooksView, references: ReadonlyArray<string | null>): BookedMovement[] {
  const found = new Map<string, BookedMovement>();
  for (const reference of references)
    if (reference !== null)
      for (const movement of books.byReference.get(reference) ?? [])
        found.set(`${movement.reference}:${movement.kind}:${movement.createdAt.getTime()}`, movement);
  return [...found.values()];
}

const sumCash = (movements: readonly BookedMovement[]): number =>
  movements.reduce((sum, movement) => sum + movement.cashPspCentavos, 0);

export function reconcile(input: ReconciliationInput): ReconciliationOutcome {
  const differences: ReconciliationItem[] = [];
  const pending: ReconciliationItem[] = [];
  const outcome: ReconciliationOutcome = {
    differences,
    pending,
    pspReceivedCentavos: null,
    pspSentCentavos: null,
    tokens: [],
  };
  if (input.statement !== null)
    Object.assign(outcome, reconcilePix(input, input.statement, differences, pending));
  if (input.wallet !== null) outcome.tokens = reconcileTokens(input, input.wallet, differences, pending);
  return outcome;
}

function reconcilePix(
  input: ReconciliationInput,
  statement: PspStatement,
  differences: ReconciliationItem[],
  pending: ReconciliationItem[],
): Pick<ReconciliationOutcome, 'pspReceivedCentavos' | 'pspSentCentavos'> {
  const { books, from } = input;
  const readAt = new Date(statement.read_at).getTime();
  const young = (at: string): boolean => new Date(at).getTime() > readAt - input.graceMs;
  const beforePeriod = (at: string): boolean => new Date(at).getTime() < from.getTime();
  /** Money the PSP has moved and the books have not posted yet, within the grace window: + in, - out. */
  let inFlight = 0;
  let received = 0;
  let sent = 0;

  // The Pix received on one charge (its txid) are compared together: a payment's journal names the txid, while money
  // that came in beside it (an excess, a second payment, a Pix after the charge expired) is booked to suspense under
  // its own endToEndId; the group's sum must equal the sum of the journals naming the txid or any of its endToEndIds.
  // A Pix without a txid (a Pix to the key, no charge) is its own group.
  const groups = new Map<string, PspStatement['received']>();
  for (const pix of statement.received) {
    if (!beforePeriod(pix.paid_at)) received += pix.amount_centavos;
    const key = pix.txid === null ? `e2e:${pix.end_to_end_id}` : `txid:${pix.txid}`;
    groups.set(key, [...(groups.get(key) ?? []), pix]);
  }
  for (const group of groups.values()) inFlight += compareReceived(group);

  function compareReceived(group: PspStatement['received']): number {
    const first = group[0]!;
    const booked = bookedUnder(books, [first.txid, ...group.map((pix) => pix.end_to_end_id)]);
    const reference = first.txid ?? first.end_to_end_id;
    const railSum = group.reduce((sum, pix) => sum + pix.amount_centavos, 0);
    const bookedSum = sumCash(booked);
    const ids = group.map((pix) => pix.end_to_end_id).join(', ');
    const lastPaid = group
      .map((pix) => pix.paid_at)
      .sort()
      .at(-1)!;
    if (booked.length === 0) {
      let gap = 0;
      for (const pix of group)
        if (young(pix.paid_at)) {
          gap += pix.amount_centavos;
          pending.push(
            item({
              kind: 'received_not_in_books',
              rail: 'pix',
              reference,
              railCentavos: pix.amount_centavos,
              occurredAt: pix.paid_at,
              detail: `Pix ${pix.end_to_end_id} received, not posted yet (within the grace window)`,
            }),
          );
        } else if (!beforePeriod(pix.paid_at))
          differences.push(
            item({
              kind: 'received_not_in_books',
              rail: 'pix',
              reference,
              railCentavos: pix.amount_centavos,
              occurredAt: pix.paid_at,
              detail: `Pix ${pix.end_to_end_id} received at the PSP, no journal names it`,
            }),
          );
      return gap;
    }
    if (bookedSum === railSum) return 0;
    // Less in the books, by no more than the group's Pix paid within the grace window: one of them not posted yet.
    const youngSum = group
      .filter((pix) => young(pix.paid_at))
      .reduce((sum, pix) => sum + pix.amount_centavos, 0);
    const gap = railSum - bookedSum;
    if (gap > 0 && gap <= youngSum) {
      pending.push(
        item({
          kind: 'received_not_in_books',
          rail: 'pix',
          reference,
          railCentavos: railSum,
          booksCentavos: bookedSum,
          occurredAt: lastPaid,
          detail: `Pix ${ids}: ${gap} centavos received within the grace window, not posted yet`,
        }),
      );
      return gap;
    }
    differences.push(
      item({
        kind: 'received_amount_mismatch',
        rail: 'pix',
        reference,
        railCentavos: railSum,
        booksCentavos: bookedSum,
        occurredAt: lastPaid,
        detail:
          group.length === 1
            ? `Pix ${ids}: the books hold another amount than the PSP received`
            : `Pix ${ids} on txid ${reference}: the books hold another amount than the PSP received`,
      }),
    );
    return 0;
  }

  /**
   * Money the PSP sent out (a devolução, a Pix sent): found in the books under one of its ids with the same amount, or
   * in flight (still processing, or within the grace window), or a difference.
   */
  function compareSent(out: {
    status: string;
    amountCentavos: number;
    at: string;
    /** Where a journal may name it; the first is the reference reported. */
    ids: [string, string];
    kind: 'return_not_in_books' | 'sent_not_in_books';
    label: string;
    missing: string;
    mismatch: string;
  }): void {
    if (out.status === 'NAO_REALIZADO') return;
    if (!beforePeriod(out.at)) sent += out.amountCentavos;
    const booked = bookedUnder(books, out.ids);
    const facts = {
      rail: 'pix' as const,
      reference: out.ids[0],
      railCentavos: -out.amountCentavos,
      occurredAt: out.at,
    };
    if (booked.length === 0) {
      if (out.status === 'EM_PROCESSAMENTO' || young(out.at)) {
        inFlight -= out.amountCentavos;
        pending.push(
          item({ ...facts, kind: out.kind, detail: `${out.label} ${out.status}, not posted yet` }),
        );
      } else if (!beforePeriod(out.at))
        differences.push(item({ ...facts, kind: out.kind, detail: `${out.label} ${out.missing}` }));
    } else if (sumCash(booked) !== -out.amountCentavos)
      differences.push(
        item({
          ...facts,
          kind: 'received_amount_mismatch',
          booksCentavos: sumCash(booked),
          detail: `${out.label}: ${out.mismatch}`,
        }),
      );
  }

  for (const pix of statement.received)
    for (const devolucao of pix.returns)
      compareSent({
        status: devolucao.status,
        amountCentavos: devolucao.amount_centavos,
        at: devolucao.settled_at ?? devolucao.requested_at,
        ids: [devolucao.id, devolucao.rtr_id],
        kind: 'return_not_in_books',
        label: `devolução ${devolucao.rtr_id}`,
        missing: `of Pix ${pix.end_to_end_id} returned, no journal names it`,
        mismatch: 'the books returned another amount than the PSP',
      });

  for (const envio of statement.sent)
    compareSent({
      status: envio.status,
      amountCentavos: envio.amount_centavos,
      at: envio.settled_at ?? envio.requested_at,
      ids: [envio.end_to_end_id, envio.id_envio],
      kind: 'sent_not_in_books',
      label: `Pix sent ${envio.id_envio}`,
      missing: 'left the account, no journal names it',
      mismatch: 'the books sent another amount than the PSP',
    });

  const atPsp = new Set(statementReferences(statement));
  for (const movement of books.referencedInPeriod)
    if (!atPsp.has(movement.reference))
      differences.push(
        item({
          kind: 'in_books_not_at_psp',
          rail: 'pix',
          reference: movement.reference,
          booksCentavos: movement.cashPspCentavos,
          occurredAt: movement.createdAt.toISOString(),
          detail: `a ${movement.kind} journal moves cash_psp under a reference the PSP does not list`,
        }),
      );

  const heldInBooks = input.pspOpeningCentavos + books.cashPspCentavos;
  if (statement.balance_centavos !== heldInBooks + inFlight)
    differences.push(
      item({
        kind: 'balance_mismatch',
        rail: 'pix',
        reference: null,
        railCentavos: statement.balance_centavos,
        booksCentavos: heldInBooks,
        occurredAt: statement.read_at,
        detail:
          `the PSP balance differs from cash_psp by ${statement.balance_centavos - heldInBooks} centavos` +
          (inFlight === 0 ? '' : `, ${inFlight} of them in flight within the grace window`),
      }),
    );
  return { pspReceivedCentavos: received, pspSentCentavos: sent };
}

function reconcileTokens(
  input: ReconciliationInput,
  wallet: WalletBalances,
  differences: ReconciliationItem[],
  pending: ReconciliationItem[],
): TokenHolding[] {
  return wallet.balances.map((balance) => {
    const held = BigInt(balance.base_units);
    const booked = input.books.tokenQuantities.get(`tokens:${balance.token}`) ?? 0n;
    const gap = held - booked;
    if (gap !== 0n) {
      // More on chain than in the books, no more than what arrived within the grace window: not posted yet.
      const inFlight = gap > 0n && gap <= BigInt(balance.recent_base_units);
      (inFlight ? pending : differences).push(
        item({
          kind: 'token_balance_mismatch',
          rail: 'solana',
          reference: balance.token,
          railBaseUnits: held,
          booksBaseUnits: booked,
          occurredAt: wallet.read_at,
          detail: inFlight
            ? `${gap} base units of ${balance.token.toUpperCase()} arrived within the grace window, not posted yet`
            : `the wallet holds ${gap} base units of ${balance.token.toUpperCase()} more than the books (negative: less)`,
        }),
      );
    }
    return {
      token: balance.token,
      wallet_base_units: held.toString(),
      books_base_units: booked.toString(),
      decimals: balance.decimals,
    };
  });
}
