import { PSP_PROFILE_NAMES, PROFILES_WITHOUT_SECRET, profilesSending } from '@gateway/contracts';
import { PSP_PROFILES, profileCallExtras, tokenRequestParts, withQuery } from '../src/domain/psp-profiles';

const credentials = { clientId: 'id:with colon', clientSecret: 's3cr&t' };

describe('PSP profiles', () => {
  it('declares every profile by its own name, each difference with a source', () => {
    for (const name of PSP_PROFILE_NAMES) {
      expect(PSP_PROFILES[name].name).toBe(name);
      expect(PSP_PROFILES[name].sources.length).toBeGreaterThan(0);
      for (const source of PSP_PROFILES[name].sources) expect(source).toMatch(/^https:\/\//);
    }
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
