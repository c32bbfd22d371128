import { ChargeEntity } from './charge.entity';
import { PixRefundEntity } from './pix-refund.entity';
import { PayoutEntity } from './payout.entity';
import { PspAccountEntity } from './psp-account.entity';
import { RecurrenceEntity } from './recurrence.entity';
import { Charges1732300003000 } from './migrations/1732300003000-charges';
import { FinalChargesFrozen1732400007000 } from './migrations/1732400007000-final-charges-frozen';
import { ChargeCheckLeases1732400031000 } from './migrations/1732400031000-charge-check-leases';
import { CancelledChargesAndRefunds1732400110000 } from './migrations/1732400110000-cancelled-charges-and-refunds';
import { ChargeTraceContext1732400171000 } from './migrations/1732400171000-charge-trace-context';
import { ChargesUnknownAtPsp1764380100000 } from './migrations/1764380100000-charges-unknown-at-psp';
import { Payouts1764400300002 } from './migrations/1764400300002-payouts';
import { PayoutReportedFailures1764400600000 } from './migrations/1764400600000-payout-reported-failures';
import { FundsReturns1764401100001 } from './migrations/1764401100001-funds-returns';
import { MedDevolucoes1764402600002 } from './migrations/1764402600002-med-devolucoes';
import { ReceivedPixPoll1764402800300 } from './migrations/1764402800300-received-pix-poll';
import { PspAccounts1764402900000 } from './migrations/1764402900000-psp-accounts';
import { MedSweepProgress1764402900100 } from './migrations/1764402900100-med-sweep-progress';
import { DueDateCharges1764403200800 } from './migrations/1764403200800-due-date-charges';
import { AutomaticPix1764403200950 } from './migrations/1764403200950-automatic-pix';

export { ChargeEntity, PayoutEntity, PixRefundEntity, PspAccountEntity, RecurrenceEntity };
export type { RecStatus } from './recurrence.entity';
export type { ChargeStatus } from './charge.entity';
export type { PixRefundStatus } from './pix-refund.entity';
export type { PayoutStatus, ReportedSendFailure } from './payout.entity';

export const pixAdapterDatabase = {
  schema: 'pix_adapter',
  entities: [ChargeEntity, PixRefundEntity, PayoutEntity, PspAccountEntity, RecurrenceEntity],
  migrations: [
    Charges1732300003000,
    FinalChargesFrozen1732400007000,
    ChargeCheckLeases1732400031000,
    CancelledChargesAndRefunds1732400110000,
    ChargeTraceContext1732400171000,
    ChargesUnknownAtPsp1764380100000,
    Payouts1764400300002,
    PayoutReportedFailures1764400600000,
    FundsReturns1764401100001,
    MedDevolucoes1764402600002,
    ReceivedPixPoll1764402800300,
    PspAccounts1764402900000,
    MedSweepProgress1764402900100,
    DueDateCharges1764403200800,
    AutomaticPix1764403200950,
  ],
};
