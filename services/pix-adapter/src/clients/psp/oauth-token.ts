import Joi from 'joi';
import { type Dispatcher } from 'undici';
import { type PspTokenBody, type PspTokenRequest } from '@gateway/contracts';
import { tokenRequestBody, tokenRequestParts, withQuery } from '../../domain/psp-profiles';
import { send } from './http';
import { PspError, pspErrorFromResponse } from './psp-error';

export interface ClientCredentials {
  oauthTokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (RFC 6749 section 3.3); empty: the PSP's default. */
  scope: string;
  timeoutMs: number;
  /** How the PSP takes the credentials (its profile's `tokenRequest`); default HTTP Basic. */
  tokenRequest?: PspTokenRequest;
  /** The body's format (its profile's `tokenBody`); default form-encoded. */
  tokenBody?: PspTokenBody;
  /** Query parameters the PSP wants on the token URL (its profile's `tokenQuery`). */
  tokenQuery?: Readonly<Record<string, string>>;
}

const tokenSchema = Joi.object<{ access_token: string; token_type?: string; expires_in?: number }>({
  access_token: Joi.string().required(),
  token_type: Joi.string().pattern(/^bearer$/i),
  expires_in: Joi.number().integer().min(1),
}).unknown(true);

/**
 * RFC 6749 only recommends `expires_in`: without it the token is kept this long, short enough that a PSP's real
 * lifetime (minutes at most, in practice) is rarely shorter; a 401 before then fetches a new one anyway.
 */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;

// Refresh ahead of expiry so a token never dies between being read and reaching the PSP.
const MAX_REFRESH_MARGIN_SECONDS = 60;

/** OAuth2 client-credentials token (RFC 6749 section 4.4), cached and shared by concurrent callers. */
export class ClientCredentialsToken {
  private cached: { token: string; refreshAt: number } | undefined;
  private inFlight: Promise<string> | undefined;

  constructor(
    private readonly credentials: ClientCredentials,
    private readonly dispatcher: Dispatcher,
    private readonly now: () => number,
  ) {}

  get(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Drops the cached token, e.g. after the PSP answered 401 because it revoked it early. */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetch(): Promise<string> {
    const { oauthTokenUrl, clientId, clientSecret, scope, timeoutMs } = this.credentials;
    const { authorization, form } = tokenRequestParts(this.credentials.tokenRequest ?? 'basic', {
      clientId,
      clientSecret,
    });
    const { contentType, body } = tokenRequestBody(this.credentials.tokenBody ?? 'form', {
      grant_type: 'client_credentials',
      ...(scope ? { scope } : {}),
      ...form,
    });
    const reply = await send(this.dispatcher, {
      operation: 'oauth.token',
      method: 'POST',
      url: withQuery(oauthTokenUrl, this.credentials.tokenQuery ?? {}),
      headers: {
        ...(authorization === undefined ? {} : { authorization }),
        'content-type': contentType,
        accept: 'application/json',
      },
      body,
      timeoutMs,
    });
    if (reply.status !== 200) throw pspErrorFromResponse(reply.status, reply.body, reply.retryAfter);
    const { value, error } = tokenSchema.validate(reply.body);
    if (error) throw new PspError('unavailable', reply.status, `unusable token response: ${error.message}`);
    const lifetime = value.expires_in ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
    const margin = Math.min(MAX_REFRESH_MARGIN_SECONDS, lifetime / 10);
    this.cached = { token: value.access_token, refreshAt: this.now() + (lifetime - margin) * 1000 };
    return value.access_token;
  }
}
