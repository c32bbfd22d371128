import {
  PSP_PROFILES,
  type PspProfile,
  type PspProfileName,
  type PspProfileSetting,
  type PspTokenBody,
  type PspTokenRequest,
} from '@gateway/contracts';

export { PSP_PROFILES, type PspProfile, type PspProfileName };

/** The values the operator configures for a profile's extra headers and query parameters. */
export type PspProfileSettings = Partial<Record<PspProfileSetting, string>>;

/** What a profile adds to every API Pix call. */
export interface PspCallExtras {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** The headers and query parameters every call carries under `profile`, with their configured values. */
export function profileCallExtras(profile: PspProfile, settings: PspProfileSettings): PspCallExtras {
  const valueOf = (setting: PspProfileSetting): string => {
    const value = settings[setting];
    if (!value) throw new Error(`PSP profile ${profile.name} needs its ${setting} setting`);
    return value;
  };
  const resolve = (declared: Readonly<Record<string, PspProfileSetting>>): Record<string, string> =>
    Object.fromEntries(Object.entries(declared).map(([name, setting]) => [name, valueOf(setting)]));
  return { headers: resolve(profile.extraHeaders), query: resolve(profile.extraQuery) };
}

/**
 * The client-credentials token request (RFC 6749 section 4.4) in a profile's style: the Authorization header, if any,
 * and the form fields besides `grant_type` and `scope`.
 */
export function tokenRequestParts(
  style: PspTokenRequest,
  credentials: { clientId: string; clientSecret: string },
): { authorization?: string; form: Record<string, string> } {
  switch (style) {
    case 'basic': {
      // RFC 6749 section 2.3.1: each part form-encoded before Basic's own encoding.
      const pair = `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`;
      return { authorization: `Basic ${Buffer.from(pair).toString('base64')}`, form: {} };
    }
    case 'form-body':
      return { form: { client_id: credentials.clientId, client_secret: credentials.clientSecret } };
    case 'client-id-only':
      return { form: { client_id: credentials.clientId } };
  }
}

/**
 * The token request's body in a profile's format: form-encoded (RFC 6749 section 4.4.2) or the same fields as a JSON
 * object (Efí).
 */
export function tokenRequestBody(
  format: PspTokenBody,
  fields: Readonly<Record<string, string>>,
): { contentType: string; body: string } {
  return format === 'json'
    ? { contentType: 'application/json', body: JSON.stringify(fields) }
    : { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() };
}

/** `url` with `query` added to whatever query it already has. */
export function withQuery(url: string, query: Readonly<Record<string, string>>): string {
  const entries = Object.entries(query);
  if (entries.length === 0) return url;
  const separator = url.includes('?') ? '&' : '?';
  return `${url}${separator}${new URLSearchParams(entries).toString()}`;
}
