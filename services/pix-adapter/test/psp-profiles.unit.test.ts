import { isDeepStrictEqual } from 'node:util';
import {
  PSP_BASELINE,
  PSP_PROFILE_DIFFERENCES,
  PSP_PROFILE_NAMES,
  PROFILES_WITHOUT_SECRET,
  type PspProfile,
  profilesSending,
} from '@gateway/contracts';
import {
  PSP_PROFILES,
  profileCallExtras,
  tokenRequestBody,
  tokenRequestParts,
  withQuery,
} from '../src/domain/psp-profiles';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';

const credentials = { clientId: 'id:with colon', clientSecret: 's3cr&t' };

describe('PSP profiles', () => {
  /** The fields in which `profile` differs from the baseline that have neither a source nor an unverified entry. */
  const undocumented = (profile: PspProfile): string[] =>
    PSP_PROFILE_DIFFERENCES.filter(
      (field) =>
        !isDeepStrictEqual(profile[field], PSP_BASELINE[field]) &&
        (profile.sources[field] ?? []).length === 0 &&
        profile.unverified[field] === undefined,
    );

  it('declares every profile by its own name, each difference with a source', () => {
    for (const name of PSP_PROFILE_NAMES) {
      const profile = PSP_PROFILES[name];
      expect(profile.name).toBe(name);
      expect({ name, undocumented: undocumented(profile) }).toEqual({ name, undocumented: [] });
      for (const sources of Object.values(profile.sources))
        for (const source of sources) expect(source).toMatch(/^https:\/\//);
    }
    // Every profile but the baseline differs somewhere: a profile without a difference is a copy of `bcb`.
    for (const name of PSP_PROFILE_NAMES.filter((other) => other !== 'bcb'))
      expect(
        PSP_PROFILE_DIFFERENCES.some((f) => !isDeepStrictEqual(PSP_PROFILES[name][f], PSP_BASELINE[f])),
      ).toBe(true);
  });

  it('finds a difference without a source or an unverified entry', () => {
    const sicoob = PSP_PROFILES.sicoob;
    expect(undocumented({ ...sicoob, callbackMtls: true })).toEqual(['callbackMtls']);
    expect(undocumented({ ...sicoob, sources: {}, unverified: {} })).toEqual([
      'tokenRequest',
      'extraHeaders',
    ]);
  });

  it('says of every profile whether it opens charges with a due date (cobv): read at the bank, or said unverified', () => {
    expect(PSP_BASELINE.cobv).toBe(true);
    expect(PSP_PROFILES.efi.sources.cobv?.length).toBeGreaterThan(0);
    for (const name of PSP_PROFILE_NAMES.filter((other) => other !== 'bcb' && other !== 'efi')) {
      expect({ name, cobv: PSP_PROFILES[name].cobv }).toEqual({ name, cobv: true });
      expect({ name, unverified: PSP_PROFILES[name].unverified.cobv }).toEqual({
        name,
        unverified: expect.any(String),
      });
    }
    // A profile that opens none: a difference from the baseline, which needs its source or an unverified entry.
    expect(undocumented({ ...PSP_PROFILES.bcb, cobv: false })).toEqual(['cobv']);
    expect(
      new ApiPixClient({
        baseUrl: 'https://psp.invalid',
        oauthTokenUrl: 'https://psp.invalid/oauth/token',
        pathPrefix: '/v2',
        timeoutMs: 1000,
        maxRetries: 0,
        ...credentials,
        profile: { ...PSP_PROFILES.bcb, cobv: false },
      }).opensDueCharges(),
    ).toBe(false);
  });

  it("encodes the token request's body as a form, or as JSON for a bank that reads JSON", () => {
    const fields = { grant_type: 'client_credentials', scope: 'cob.read cob.write' };
    expect(tokenRequestBody('form', fields)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=client_credentials&scope=cob.read+cob.write',
    });
    expect(tokenRequestBody('json', { grant_type: 'client_credentials' })).toEqual({
      contentType: 'application/json',
      body: '{"grant_type":"client_credentials"}',
    });
    expect(PSP_PROFILES.efi.tokenBody).toBe('json');
  });

  it('asks for the token in each style: Basic, form-body credentials, or the client id alone', () => {
    const basic = tokenRequestParts('basic', credentials);
    expect(basic.form).toEqual({});
    expect(Buffer.from(basic.authorization!.replace('Basic ', ''), 'base64').toString()).toBe(
      'id%3Awith%20colon:s3cr%26t',
    );
    expect(tokenRequestParts('form-body', credentials)).toEqual({
      form: { client_id: 'id:with colon', client_secret: 's3cr&t' },
    });
    expect(tokenRequestParts('client-id-only', credentials)).toEqual({
      form: { client_id: 'id:with colon' },
    });
  });

  it("adds a profile's headers and query parameters with their configured values", () => {
    const settings = { developerAppKey: 'app key', accountNumber: '123' };
    expect(profileCallExtras(PSP_PROFILES.bb, settings)).toEqual({
      headers: {},
      query: { 'gw-dev-app-key': 'app key' },
    });
    expect(profileCallExtras(PSP_PROFILES.inter, settings)).toEqual({
      headers: { 'x-conta-corrente': '123' },
      query: {},
    });
    expect(profileCallExtras(PSP_PROFILES.sicoob, { clientId: 'the-client' })).toEqual({
      headers: { 'x-sicoob-clientid': 'the-client' },
      query: {},
    });
    expect(profileCallExtras(PSP_PROFILES.bcb, {})).toEqual({ headers: {}, query: {} });
    expect(profilesSending('developerAppKey')).toEqual(['bb']);
    expect(profilesSending('accountNumber')).toEqual(['inter']);
    expect(PROFILES_WITHOUT_SECRET).toEqual(['sicoob']);
    expect(() => profileCallExtras(PSP_PROFILES.inter, {})).toThrow(/accountNumber/);
  });

  it('appends query parameters to a URL with or without a query of its own', () => {
    expect(withQuery('https://psp/v2/cob/abc', { 'gw-dev-app-key': 'k y' })).toBe(
      'https://psp/v2/cob/abc?gw-dev-app-key=k+y',
    );
    expect(withQuery('https://psp/v2/pix?inicio=a', { 'gw-dev-app-key': 'k' })).toBe(
      'https://psp/v2/pix?inicio=a&gw-dev-app-key=k',
    );
    expect(withQuery('https://psp/v2/pix', {})).toBe('https://psp/v2/pix');
  });
});
