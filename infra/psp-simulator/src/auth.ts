import { randomBytes } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import { PSP_PROFILES, type PspProfile } from '@gateway/contracts';
import { asyncHandler } from '@gateway/http-errors';
import { type CobStore } from './cob-store';
import { sendProblem } from './problem';
import {
  type ClientCredentials,
  missingTokenQuery,
  tokenBodyAccepted,
  tokenRequestAuthenticates,
} from './psp-profile';

export { type ClientCredentials };

/**
 * The API Pix scopes of the operations the simulator serves (`securitySchemes.OAuth2`), then Efí's for its envio de
 * Pix and balance (https://dev.efipay.com.br/docs/api-pix/credenciais/) and its MED infractions (its SDKs'
 * `medList` / `medDefense`, docs/psp-profiles.md).
 */
export const API_PIX_SCOPES = [
  'cob.write',
  'cob.read',
  'cobv.write',
  'cobv.read',
  'payloadlocation.write',
  'payloadlocation.read',
  'pix.write',
  'pix.read',
  'webhook.write',
  'webhook.read',
  'rec.write',
  'rec.read',
  'solicrec.write',
  'solicrec.read',
  'webhookrec.write',
  'webhookrec.read',
  'cobr.write',
  'cobr.read',
  'webhookcobr.write',
  'webhookcobr.read',
  'payloadlocationrec.write',
  'payloadlocationrec.read',
  'pix.send',
  'gn.pix.send.read',
  'gn.balance.read',
  'gn.infractions.read',
  'gn.infractions.write',
] as const;
export type ApiPixScope = (typeof API_PIX_SCOPES)[number];

export interface TokenOptions {
  ttlSeconds: number;
  /** Leave `expires_in` out of token answers (RFC 6749 only recommends it), as some PSPs do. */
  omitExpiresIn?: boolean;
  /** The bank whose way of taking credentials it enforces; default the baseline (HTTP Basic). */
  profile?: PspProfile;
}

/**
 * OAuth2 client-credentials issuer (RFC 6749 section 4.4) and the Bearer and scope checks API Pix puts on calls. The
 * tokens it hands out are in the books, so a client's token stays good across a restart until it expires.
 */
export class TokenIssuer {
  constructor(
    private readonly credentials: ClientCredentials,
    private readonly options: TokenOptions,
    private readonly store: CobStore,
  ) {}

  /** `POST /oauth/token`; errors follow RFC 6749 section 5.2 (`{error}`), which OAuth clients expect. */
  router(): Router {
    const router = express.Router();
    router.post(
      '/oauth/token',
      express.urlencoded({ extended: false }),
      express.json({ limit: '16kb' }),
      asyncHandler(async (req, res) => {
        const profile = this.options.profile ?? PSP_PROFILES.bcb;
        // Each bank reads the token request in one format: the form of RFC 6749, or JSON (Efí).
        if (!tokenBodyAccepted(profile, req)) {
          res.status(400).json({
            error: 'invalid_request',
            error_description: `the body must be ${profile.tokenBody === 'json' ? 'JSON' : 'form-encoded'}`,
          });
          return;
        }
        if (!tokenRequestAuthenticates(profile, this.credentials, req)) {
          res.status(401).set('www-authenticate', 'Basic realm="oauth"').json({ error: 'invalid_client' });
          return;
        }
        const missing = missingTokenQuery(profile, req);
        if (missing.length > 0) {
          res.status(400).json({
            error: 'invalid_request',
            error_description: `missing in the query: ${missing.join(' ')}`,
          });
          return;
        }
        if (req.body?.grant_type !== 'client_credentials') {
          res.status(400).json({ error: 'unsupported_grant_type' });
          return;
        }
        // RFC 6749 section 3.3: without `scope` the client gets the default, here every scope it may have.
        const requested =
          typeof req.body?.scope === 'string' ? req.body.scope.split(' ').filter(Boolean) : [];
        const unknown = requested.filter(
          (scope: string) => !(API_PIX_SCOPES as readonly string[]).includes(scope),
        );
        if (unknown.length > 0) {
          res
            .status(400)
            .json({ error: 'invalid_scope', error_description: `unknown: ${unknown.join(' ')}` });
          return;
        }
        const scopes: string[] = requested.length > 0 ? requested : [...API_PIX_SCOPES];
        const token = randomBytes(24).toString('base64url');
        await this.store.recordToken(token, {
          clientId: this.credentials.clientId,
          expiresAt: new Date(Date.now() + this.options.ttlSeconds * 1000),
          scopes,
        });
        res.set('cache-control', 'no-store').json({
          access_token: token,
          token_type: 'Bearer',
          ...(this.options.omitExpiresIn ? {} : { expires_in: this.options.ttlSeconds }),
          scope: scopes.join(' '),
        });
      }),
    );
    return router;
  }

  /**
   * A valid Bearer token, or 401 with RFC 6750's challenge. API Pix documents no 401 (access is OAuth's business);
   * the body is its problem form with `AcessoNegado`, the only type it has for refused access.
   */
  requireBearer(): RequestHandler {
    return asyncHandler(async (req, res, next) => {
      const token = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1];
      const issued = token === undefined ? undefined : await this.store.token(token);
      // A token of another client (the simulator restarted under new credentials) is no longer good.
      if (
        issued !== undefined &&
        issued.expiresAt.getTime() > Date.now() &&
        issued.clientId === this.credentials.clientId
      ) {
        res.locals.scopes = new Set(issued.scopes);
        return next();
      }
      res.set('www-authenticate', 'Bearer error="invalid_token"');
      sendProblem(
        res,
        401,
        'AcessoNegado',
        'Acesso negado.',
        'Token de acesso ausente, inválido ou expirado.',
      );
    });
  }

  /** The operation's scope (its `security: OAuth2: [...]`), else 403 `AcessoNegado` (RFC 6750 insufficient_scope). */
  static requireScope(scope: ApiPixScope): RequestHandler {
    return (_req, res, next) => {
      if ((res.locals.scopes as Set<string> | undefined)?.has(scope)) return next();
      res.set('www-authenticate', `Bearer error="insufficient_scope", scope="${scope}"`);
      sendProblem(res, 403, 'AcessoNegado', 'Acesso negado.', `O token não tem o escopo ${scope}.`);
    };
  }
}
