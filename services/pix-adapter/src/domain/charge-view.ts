import type { PixCharge, PixDue } from '@gateway/contracts';
import { payableWindow } from './due-charge';

/** What the payer is shown of a charge: its current code and QR, and until when it can be paid. */
export interface ChargeShown {
  txid: string;
  qrCode: string;
  copiaECola: string;
  expiresAt: Date;
  /** The business's own PSP account it was opened at; null: the platform's. */
  pspAccountId: string | null;
  /** A charge with a due date: its rules. */
  due: PixDue | null;
}

export function toPixCharge(charge: ChargeShown): PixCharge {
  return {
    txid: charge.txid,
    qr_code: charge.qrCode,
    copia_e_cola: charge.copiaECola,
    expires_at: charge.expiresAt.toISOString(),
    custody: charge.pspAccountId === null ? 'platform' : 'direct',
    ...(charge.due
      ? { due_date: charge.due.date, payable_until: payableWindow(charge.due).payableUntil }
      : {}),
  };
}
