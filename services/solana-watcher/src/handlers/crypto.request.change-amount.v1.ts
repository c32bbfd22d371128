import type { DataSource } from 'typeorm';
import type { ChangeCryptoRequestAmount, RevisedCryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { changeRequestAmount } from '../application/change-request-amount';
import type { PaymentDetector } from '../application/detect-payments';
import type { RequestIssuer } from '../application/issue-transfer-request';

/** The payment service changes a crypto payment's amount (see changeRequestAmount). */
export function handleChangeCryptoRequestAmount(
  dataSource: DataSource,
  uow: UnitOfWork,
  issuer: RequestIssuer,
  detector: Pick<PaymentDetector, 'scanReference'>,
) {
  return (command: ChangeCryptoRequestAmount, context: MessageContext): Promise<RevisedCryptoRequest> =>
    changeRequestAmount({ dataSource, uow, issuer, detector }, command, context);
}
