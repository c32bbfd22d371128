import type { PixCharge } from '@gateway/contracts';
import type { ChargeEntity } from '../persistence';

export function toPixCharge(charge: ChargeEntity): PixCharge {
  return {
    txid: charge.txid,
    qr_code: charge.qrCode,
    copia_e_cola: charge.copiaECola,
    expires_at: charge.expiresAt.toISOString(),
  };
}
