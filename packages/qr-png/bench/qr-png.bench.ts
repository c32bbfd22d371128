/** Cost of a payment QR code: our 1-bit PNG encoder vs qrcode.toDataURL. Run: pnpm --filter @gateway/qr-png bench */
import { measure } from '@gateway/testkit-core';
import QRCode from 'qrcode';
import { qrPngDataUri } from '../src';

const brCode =
  '00020101021226810014br.gov.bcb.pix2559127.0.0.1:4010/v2/loc/981a25d1-07a6-4de4-8f3a-3ffe2a5bf3555204000053039865802BR5913PSP SIMULADOR6009SAO PAULO62070503***6304E828';

async function main(): Promise<void> {
  console.log(
    `data URI length: ours ${qrPngDataUri(brCode).length}, qrcode ${(await QRCode.toDataURL(brCode, { margin: 2, width: 300 })).length}`,
  );
  await measure('QRCode.create (matrix only)', 2000, () =>
    QRCode.create(brCode, { errorCorrectionLevel: 'M' }),
  );
  await measure('qrPngDataUri (matrix + 1-bit PNG)', 2000, () => qrPngDataUri(brCode));
  await measure('QRCode.toDataURL (width 300)', 500, () =>
    QRCode.toDataURL(brCode, { margin: 2, width: 300 }),
  );
}

void main();
