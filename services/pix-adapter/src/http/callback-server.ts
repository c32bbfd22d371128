import { createHash, timingSafeEqual } from 'node:crypto';
import { type Server, createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { accountCallbackToken, pspAccountId } from '@gateway/contracts';
import { AppError, asyncHandler, errorMiddleware, notFoundHandler } from '@gateway/http-errors';
import { gracefulHttpStop } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { parsePspCallback } from '../clients/psp/callback';
import { checkTlsMaterial, readPemFile } from '../clients/psp/client-certificate';
import type { CallbackProcessor } from '../application/callback-processor';
import type { RecurrenceCallbacks } from '../application/follow-recurrence';

/**
 * The listener's own TLS (PEM strings): it then serves HTTPS. With `clientCa` it requires a client certificate issued
 * by that CA and refuses every other connection in the handshake (Efí's model: the PSP calls back over mutual TLS and
 * refuses to register a receiver that accepts a connection without a certificate).
 */
export interface CallbackTls {
  cert: string;
  key: string;
  clientCa?: string;
}

/**
 * The listener's TLS read from its PEM files, or none (plain HTTP, TLS ending at the ingress). A file that is empty or
 * holds no PEM block of its kind, or a key that is not the certificate's, is a configuration error: an empty client CA
 * must never turn into a listener that asks no certificate.
 */
export function readCallbackTls(files: {
  cert?: string;
  key?: string;
  clientCa?: string;
}): CallbackTls | undefined {
  if (!files.cert || !files.key) return undefined;
  const cert = readPemFile('CALLBACK_TLS_CERT', files.cert, 'certificate');
  const key = readPemFile('CALLBACK_TLS_KEY', files.key, 'private key');
  checkTlsMaterial(
    ['CALLBACK_TLS_CERT', 'CALLBACK_TLS_KEY'],
    { cert, key },
    'CALLBACK_TLS_KEY is not the private key of CALLBACK_TLS_CERT',
  );
  return {
    cert,
    key,
    ...(files.clientCa === undefined
      ? {}
      : { clientCa: readPemFile('CALLBACK_CLIENT_CA', files.clientCa, 'certificate') }),
  };
}

export interface CallbackServerOptions {
  host: string;
  port: number;
  token: string;
  /** Serve HTTPS, and with its `clientCa` require the PSP's client certificate; the token is checked all the same. */
  tls?: CallbackTls;
  processor: CallbackProcessor;
  /** Handles the Pix the account sent that a callback tells of (Efí `gnExtras.idEnvio`), beside received Pix. */
  sentPix: (body: unknown) => Promise<void>;
  /** Pix Automático's callbacks (`/webhook/rec`, `/webhook/cobr`), at the platform's account. */
  recurrences?: RecurrenceCallbacks;
  logger: Logger;
}

export interface RunningCallbackServer {
  /** `http://host:port` (`https://` with TLS), with the port actually bound. */
  baseUrl: string;
  /** Refuses new connections and resolves once the callbacks being received are answered (the PSP resends others). */
  close(): Promise<void>;
}

/**
 * Constant-time comparison of the `token` query parameter. PSPs that append `/pix` (or `/rec`, `/cobr`) to the
 * registered URL textually (rather than to its path) turn `?token=abc` into `?token=abc/pix`, so that suffix is not
 * part of the token.
 */
function tokenMatcher(expected: string): (given: unknown) => boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expectedDigest = digest(expected);
  return (given) =>
    typeof given === 'string' &&
    timingSafeEqual(digest(given.replace(/\/(pix|rec|cobr)$/, '')), expectedDigest);
}

/**
 * Receives the PSP's PIX callbacks at `/webhook` and `/webhook/pix`: Pix received and, on the same webhook of the
 * payer key, Pix sent (payouts); a business's own account at `/webhook/accounts/{id}`, with that account's token
 * (`accountCallbackToken`). The token authenticates the caller; with `tls.clientCa` the PSP's client certificate
 * must also be one its CA issued (otherwise mTLS at the ingress adds it). It answers 200 once every item is recorded, or 503
 * when the PSP could not be asked, so the PSP sends the callback again.
 */
export function startCallbackServer(options: CallbackServerOptions): Promise<RunningCallbackServer> {
  const { logger, processor } = options;
  const tokenMatches = tokenMatcher(options.token);
  const app = express();
  app.disable('x-powered-by');
  const authenticated = (req: express.Request, _res: express.Response, next: express.NextFunction) =>
    next(tokenMatches(req.query.token) ? undefined : new AppError('UNAUTHORIZED'));
  // A business's own account calls back with its account's token, never the platform's.
  const accountAuthenticated = (req: express.Request, _res: express.Response, next: express.NextFunction) =>
    next(
      tokenMatcher(accountCallbackToken(options.token, String(req.params.accountId)))(req.query.token)
        ? undefined
        : new AppError('UNAUTHORIZED'),
    );
  const receive = (accountOf: (req: express.Request) => string | null) =>
    asyncHandler(async (req, res) => {
      const { items, rejected } = parsePspCallback(req.body);
      if (rejected.length > 0) logger.warn({ rejected }, 'PSP callback items rejected');
      const accountId = accountOf(req);
      try {
        const outcomes = await processor.process(items, accountId);
        // Payouts are sent from the platform's account only.
        if (accountId === null) await options.sentPix(req.body);
        res.status(200).json({ received: outcomes.length });
      } catch (err) {
        logger.warn(
          { err, psp_account_id: accountId },
          'PSP callback not processed, asking the PSP to send it again',
        );
        throw new AppError('SERVICE_UNAVAILABLE');
      }
    });
  const body = express.json({ limit: '256kb', type: () => true });
  app.post(
    ['/webhook', '/webhook/pix'],
    authenticated,
    body,
    receive(() => null),
  );
  // Pix Automático: the recurrences' callbacks (`{webhookrec}/rec`) and the cycles' (`{webhookcobr}/cobr`), the
  // suffix appended to the path or, by PSPs that append it textually, to the token.
  const { recurrences } = options;
  if (recurrences) {
    const follow = (handle: (body: unknown) => Promise<number>) =>
      asyncHandler(async (req, res) => {
        try {
          res.status(200).json({ received: await handle(req.body) });
        } catch (err) {
          logger.warn({ err }, 'Pix Automático callback not processed, asking the PSP to send it again');
          throw new AppError('SERVICE_UNAVAILABLE');
        }
      });
    app.post(
      ['/webhook/rec', '/webhook/rec/rec'],
      authenticated,
      body,
      follow((received) => recurrences.recs(received, null)),
    );
    app.post(
      ['/webhook/cobr', '/webhook/cobr/cobr'],
      authenticated,
      body,
      follow((received) => recurrences.cobrs(received, null)),
    );
  }
  // A business's own PSP account calls back on a path of its own (the webhook registered when the account was set).
  app.post(
    ['/webhook/accounts/:accountId', '/webhook/accounts/:accountId/pix'],
    accountAuthenticated,
    (req, _res, next) =>
      next(pspAccountId.validate(req.params.accountId).error ? new AppError('NOT_FOUND') : undefined),
    body,
    receive((req) => req.params.accountId ?? null),
  );
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger));
  const { tls } = options;
  const server: Server = tls
    ? createHttpsServer(
        {
          cert: tls.cert,
          key: tls.key,
          minVersion: 'TLSv1.2',
          ...(tls.clientCa === undefined
            ? {}
            : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
        },
        app,
      )
    : createHttpServer(app);
  return new Promise((resolve, reject) => {
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({ baseUrl: `${tls ? 'https' : 'http'}://${options.host}:${port}`, close });
    });
    const close = gracefulHttpStop(server);
    server.once('error', reject);
  });
}
