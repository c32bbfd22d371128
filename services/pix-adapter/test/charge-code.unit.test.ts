import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import { testLogger } from '@gateway/testkit';
import { makeChargeCode } from '../src/application/shared/make-charge-code';
import { PspError } from '../src/clients/psp/psp-error';
import { aCob } from './support/cob';

const merchant = { name: 'Loja Teste', city: 'SAO PAULO' };

const cobAt = (location: string) => aCob({ loc: { id: 2, location, tipoCob: 'cob' } });

describe('makeChargeCode', () => {
  it('builds the code for the location the cob was moved to, with or without https:// on either side', async () => {
    const code = await makeChargeCode(
      cobAt('psp.example/v2/loc/new'),
      merchant,
      testLogger(),
      'https://psp.example/v2/loc/new',
    );

    const parsed = parsePix(code.copiaECola);
    if (hasError(parsed) || !isDynamicPix(parsed)) throw new Error('not a dynamic BR Code');
    expect(parsed.url).toBe('psp.example/v2/loc/new');
    expect(code.qrCode).toMatch(/^data:image\/png;base64,/);
  });

  it('when the PSP left the cob at another location, refuses it as a PSP fault instead of showing that code', async () => {
    const made = makeChargeCode(
      cobAt('psp.example/v2/loc/old'),
      merchant,
      testLogger(),
      'psp.example/v2/loc/new',
    );

    await expect(made).rejects.toBeInstanceOf(PspError);
    await expect(made).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
