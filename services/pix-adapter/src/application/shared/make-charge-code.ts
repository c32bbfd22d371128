import { qrPngDataUri } from '@gateway/qr-png';
import type { Logger } from '@gateway/observability';
import { buildDynamicBrCode, sameLocation, verifyPspBrCode } from '../../domain/br-code';
import { cobLocation, type Cob } from '../../clients/psp/cob';
import { PspError } from '../../clients/psp/psp-error';

export interface ChargeCode {
  location: string;
  copiaECola: string;
  /** `data:image/png;base64,...` of exactly `copiaECola`. */
  qrCode: string;
}

/**
 * The code the payer copies and the QR of it, made once per cob revision (the QR is the costly part). The PSP's own
 * pixCopiaECola is used when it verifies against the cob location; otherwise we build the dynamic BR Code ourselves.
 * Given `expectedLocation` (the one the cob was just moved to), a cob still elsewhere is refused as a PSP fault.
 */
export async function makeChargeCode(
  cob: Cob,
  merchant: { name: string; city: string },
  logger: Logger,
  expectedLocation?: string,
): Promise<ChargeCode> {
  const location = cobLocation(cob);
  if (location === undefined) throw new PspError('unavailable', null, `cob ${cob.txid} has no location`);
  if (expectedLocation !== undefined && !sameLocation(location, expectedLocation))
    throw new PspError('unavailable', null, `cob ${cob.txid} is at ${location}, not at ${expectedLocation}`);
  let copiaECola: string | undefined;
  if (cob.pixCopiaECola !== undefined) {
    const verified = verifyPspBrCode(cob.pixCopiaECola, location);
    if (verified.ok) copiaECola = cob.pixCopiaECola;
    else
      logger.warn(
        { txid: cob.txid, reason: verified.reason },
        'PSP pixCopiaECola rejected, building our own',
      );
  }
  copiaECola ??= buildDynamicBrCode({ location, merchantName: merchant.name, merchantCity: merchant.city });
  const qrCode = qrPngDataUri(copiaECola);
  return { location, copiaECola, qrCode };
}
