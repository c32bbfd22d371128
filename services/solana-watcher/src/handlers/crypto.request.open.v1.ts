import type { DataSource } from 'typeorm';
import type { CryptoRequest, OpenCryptoRequest } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import type { RequestIssuer } from '../application/issue-transfer-request';
import { openTransferRequest } from '../application/open-transfer-request';

/** The payment service opens a crypto payment's transfer request (see openTransferRequest). */
export function handleOpenCryptoRequest(dataSource: DataSource, uow: UnitOfWork, issuer: RequestIssuer) {
  return (command: OpenCryptoRequest, context: MessageContext): Promise<CryptoRequest> =>
    openTransferRequest({ dataSource, uow, issuer }, command, context);
}
