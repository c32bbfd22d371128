import type { DataSource } from 'typeorm';
import type { SimulateCryptoOutcome } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { simulateCryptoOutcome } from '../application/simulate-crypto-outcome';
import type { SandboxWallet } from '../clients/sandbox-wallet';

/** A sandbox payment's simulated outcome, through the real flow (see simulateCryptoOutcome). */
export function handleSimulateCryptoOutcome(
  dataSource: DataSource,
  uow: UnitOfWork,
  wallet: SandboxWallet | null,
  recipient: string,
  confirmationGraceMs: number,
) {
  return (command: SimulateCryptoOutcome, context: MessageContext): Promise<{ accepted: true }> =>
    simulateCryptoOutcome({ dataSource, uow, wallet, recipient, confirmationGraceMs }, command, context);
}
