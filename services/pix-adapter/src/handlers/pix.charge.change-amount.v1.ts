import type { ChangePixChargeAmount, PixCharge } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { changeChargeAmount, type ChangeAmountDeps } from '../application/change-charge-amount';

export function handleChangeChargeAmount(deps: ChangeAmountDeps) {
  return (command: ChangePixChargeAmount, context: MessageContext): Promise<PixCharge> =>
    changeChargeAmount(deps, command, context);
}
