import type { OpenPixCharge, PixCharge } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { openCharge, type OpenChargeDeps } from '../application/open-charge';

export function handleOpenCharge(deps: OpenChargeDeps) {
  return (command: OpenPixCharge, context: MessageContext): Promise<PixCharge> =>
    openCharge(deps, command, context);
}
