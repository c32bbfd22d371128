import type { PaymentMethod } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import { cryptoRail } from './crypto-rail';
import { pixRail } from './pix-rail';
import type { Rail } from './rail';
import { RailCaller } from './rail-caller';
import { PixRecurrences } from './pix-recurrences';

export * from './rail';
export { LedgerReservations, type LedgerOptions } from './ledger';
export { cryptoRequestClosure, cryptoSettledFunds } from './crypto-rail';
export { pixChargeClosure, pixChargePaidFunds } from './pix-rail';
export { PixRecurrences } from './pix-recurrences';

/** Every rail a payment can use, by method: the one place that knows which rail serves which method. */
export class Rails {
  private readonly byMethod: Record<PaymentMethod, Rail>;
  /** Pix Automático's recurrences and cycles, at the PIX adapter. */
  readonly recurrences: PixRecurrences;

  constructor(broker: Broker, options: { timeoutMs: number; pixExpiresInSeconds: number }) {
    const caller = new RailCaller(broker, options.timeoutMs);
    this.byMethod = {
      pix: pixRail(caller, options.pixExpiresInSeconds),
      crypto: cryptoRail(caller),
    };
    this.recurrences = new PixRecurrences(caller);
  }

  of(method: PaymentMethod): Rail {
    return this.byMethod[method];
  }
}
