/**
 * Cost per PIX charge code on this machine: building the dynamic BR Code, and the adapter's own makeChargeCode (code +
 * QR PNG data URI, as every cob revision gets it). The QR image encoder itself is measured in packages/qr-png.
 * Run: pnpm --filter @gateway/pix-adapter bench
 */
import { measure, testLogger } from '@gateway/testkit';
import { makeChargeCode } from '../src/application/shared/make-charge-code';
import { buildDynamicBrCode } from '../src/domain/br-code';
import { aCob } from '../test/support/cob';

async function main(): Promise<void> {
  const merchant = { name: 'Padaria São João', city: 'São Paulo' };
  const location = 'pix.example.com.br/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25';
  // No pixCopiaECola from the PSP: the adapter builds the code itself, then renders its QR.
  const cob = aCob({ loc: { id: 1, location, tipoCob: 'cob' }, valor: { original: '123.45' } });
  const logger = testLogger('bench');
  const code = buildDynamicBrCode({ location, merchantName: merchant.name, merchantCity: merchant.city });
  const chargeCode = await makeChargeCode(cob, merchant, logger);
  console.log(`BR Code of ${code.length} characters, QR data URI of ${chargeCode.qrCode.length} characters`);

  await measure('buildDynamicBrCode', 50_000, () =>
    buildDynamicBrCode({ location, merchantName: merchant.name, merchantCity: merchant.city }),
  );
  await measure('makeChargeCode (BR Code + QR PNG data URI as the adapter renders it)', 2_000, () =>
    makeChargeCode(cob, merchant, logger),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
