import { FeeRuleEntity } from './fee-rule.entity';
import { PaymentEntity } from './payment.entity';
import { ReceivedFundsEntity } from './received-funds.entity';
import { RefundEntity } from './refund.entity';
import { DisputeEntity } from './dispute.entity';
import { SubscriptionEntity } from './subscription.entity';
import { Payments1732300002000 } from './migrations/1732300002000-payments';
import { ReceivedFundsOncePerTransfer1732400002000 } from './migrations/1732400002000-received-funds-once-per-transfer';
import { FinalPaymentsFrozen1732400001000 } from './migrations/1732400001000-final-payments-frozen';
import { ReceivedFundsPages1732400020000 } from './migrations/1732400020000-received-funds-pages';
import { RailCallClaims1732400030000 } from './migrations/1732400030000-rail-call-claims';
import { PaymentPages1732400041000 } from './migrations/1732400041000-payment-pages';
import { PaymentCustomer1732400080000 } from './migrations/1732400080000-payment-customer';
import { Refunds1732400100000 } from './migrations/1732400100000-refunds';
import { PaymentPayer1732400203000 } from './migrations/1732400203000-payment-payer';
import { UnreadableReceivedFunds1732400272000 } from './migrations/1732400272000-unreadable-received-funds';
import { FundsReturnedOnce1732400273000 } from './migrations/1732400273000-funds-returned-once';
import { ReceivedFundsPerInstruction1732400275000 } from './migrations/1732400275000-received-funds-per-instruction';
import { ReceivedFundsOperatorList1732400276000 } from './migrations/1732400276000-received-funds-operator-list';
import { RefundRequests1764400300001 } from './migrations/1764400300001-refund-requests';
import { ReceivedFundsAssigned1764400400001 } from './migrations/1764400400001-received-funds-assigned';
import { RefundIntents1764400700000 } from './migrations/1764400700000-refund-intents';
import { ReceivedFundsArrivalQuote1764401000000 } from './migrations/1764401000000-received-funds-arrival-quote';
import { OperatorReturns1764401100000 } from './migrations/1764401100000-operator-returns';
import { Disputes1764402600000 } from './migrations/1764402600000-disputes';
import { DisputeDefence1764403000000 } from './migrations/1764403000000-dispute-defence';
import { PaymentDescription1764402800100 } from './migrations/1764402800100-payment-description';
import { PaymentCustody1764402900001 } from './migrations/1764402900001-payment-custody';
import { OperatorReturnAskedAt1764402900200 } from './migrations/1764402900200-operator-return-asked-at';
import { PaymentOutboxInsertedAt1764403200200 } from './migrations/1764403200200-outbox-inserted-at';
import { PaymentChangeFeed1764403200410 } from './migrations/1764403200410-payment-change-feed';
import { DueDatePayments1764403200810 } from './migrations/1764403200810-due-date-payments';
import { Subscriptions1764403200910 } from './migrations/1764403200910-subscriptions';
import { SubscriptionCycleOpening1764403201050 } from './migrations/1764403201050-subscription-cycle-opening';

export { DisputeEntity, FeeRuleEntity, PaymentEntity, ReceivedFundsEntity, RefundEntity, SubscriptionEntity };
export type { ReceivedFundsKind } from './received-funds.entity';
export * from './create-reservation-store';
export * from './payment-store';
export * from './refund-store';
export * from './dispute-store';
export * from './refund-request-store';
export * from './received-funds-store';
export * from './subscription-store';

export const paymentDatabase = {
  schema: 'payment',
  entities: [
    PaymentEntity,
    FeeRuleEntity,
    ReceivedFundsEntity,
    RefundEntity,
    DisputeEntity,
    SubscriptionEntity,
  ],
  migrations: [
    Payments1732300002000,
    FinalPaymentsFrozen1732400001000,
    ReceivedFundsOncePerTransfer1732400002000,
    ReceivedFundsPages1732400020000,
    RailCallClaims1732400030000,
    PaymentPages1732400041000,
    PaymentCustomer1732400080000,
    Refunds1732400100000,
    PaymentPayer1732400203000,
    UnreadableReceivedFunds1732400272000,
    FundsReturnedOnce1732400273000,
    ReceivedFundsPerInstruction1732400275000,
    ReceivedFundsOperatorList1732400276000,
    RefundRequests1764400300001,
    ReceivedFundsAssigned1764400400001,
    RefundIntents1764400700000,
    ReceivedFundsArrivalQuote1764401000000,
    OperatorReturns1764401100000,
    Disputes1764402600000,
    PaymentDescription1764402800100,
    PaymentCustody1764402900001,
    OperatorReturnAskedAt1764402900200,
    DisputeDefence1764403000000,
    PaymentOutboxInsertedAt1764403200200,
    PaymentChangeFeed1764403200410,
    DueDatePayments1764403200810,
    Subscriptions1764403200910,
    SubscriptionCycleOpening1764403201050,
  ],
};
