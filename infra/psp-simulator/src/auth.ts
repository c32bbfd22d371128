import { randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import { sendProblem } from './problem';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** OAuth2 client-credentials issuer (RFC 6749 section 4.4) and the Bearer check API Pix puts on every call. */
export class TokenIssuer {
  private readonly expiryByToken = new Map<string, number>();

  constructor(
    private readonly credentials: ClientCredentials,
    private readonly ttlSeconds: number,
  ) {}

  /** `POST /oauth/token`; errors follow RFC 6749 section 5.2 (`{error}`), which OAuth clients expect. */
  router(): Router {
    const router = express.Router();
    router.post('/oauth/token', express.urlencoded({ extended: false }), (req, res) => {
      if (!this.authenticates(req.get('authorization'))) {
        res.status(401).set('www-authenticate', 'Basic realm="oauth"').json({ error: 'invalid_client' });
        return;
      }
      if (req.body?.grant_type !== 'client_credentials') {
        res.status(400).json({ error: 'unsupported_grant_type' });
        return;
      }
      const token = randomBytes(24).toString('base64url');
      this.expiryByToken.set(token, Date.now() + this.ttlSeconds * 1000);
      res
        .set('cache-control', 'no-store')
        .json({ access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds });
    });
    return router;
  }

  requireBearer(): RequestHandler {
    return (req, res, next) => {
      const token = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1];
      const expiry = token === undefined ? undefined : this.expiryByToken.get(token);
      if (expiry !== undefined && expiry > Date.now()) return next();
      res.set('www-authenticate', 'Bearer');
      sendProblem(
        res,
        401,
        'NaoAutorizado',
        'Não autorizado',
        'Token de acesso ausente, inválido ou expirado.',
      );
    };
  }

  private authenticates(header: string | undefined): boolean {
    const encoded = /^Basic (.+)$/i.exec(header ?? '')?.[1];
    if (encoded === undefined) return false;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const separator = decoded.indexOf(':');
    if (separator < 0) return false;
    const clientId = decodeURIComponent(decoded.slice(0, separator));
    const clientSecret = decodeURIComponent(decoded.slice(separator + 1));
    return (
      safeEqual(clientId, this.credentials.clientId) && safeEqual(clientSecret, this.credentials.clientSecret)
    );
  }
}

function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
