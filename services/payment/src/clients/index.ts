import type { PaymentMethod } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import { cryptoRail } from './crypto-rail';
import { pixRail } from './pix-rail';
import type { Rail } from './rail';
import { RailCaller } from './rail-caller';

export * from './rail';
export { LedgerReservations, type LedgerOptions } from './ledger';
export { cryptoRequestClosure, cryptoSettledFunds } from './crypto-rail';
export { pixChargeClosure, pixChargePaidFunds } from './pix-rail';

/** Every rail a payment can use, by method: the one place that knows which rail serves which method. */
export class Rails {
  private readonly byMethod: Record<PaymentMethod, Rail>;

  constructor(broker: Broker, options: { timeoutMs: number; pixExpiresInSeconds: number }) {
    const caller = new RailCaller(broker, options.timeoutMs);
    this.byMethod = {
      pix: pixRail(caller, options.pixExpiresInSeconds),
      crypto: cryptoRail(caller),
    };
  }

  of(method: PaymentMethod): Rail {
    return this.byMethod[method];
  }
}
