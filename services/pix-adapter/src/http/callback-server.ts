import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AppError, asyncHandler, errorMiddleware, notFoundHandler } from '@gateway/http-errors';
import { gracefulHttpStop } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { parsePspCallback } from '../clients/psp/callback';
import type { CallbackProcessor } from '../application/callback-processor';

export interface CallbackServerOptions {
  host: string;
  port: number;
  token: string;
  processor: CallbackProcessor;
  /** Handles the Pix the account sent that a callback tells of (Efí `gnExtras.idEnvio`), beside received Pix. */
  sentPix: (body: unknown) => Promise<void>;
  logger: Logger;
}

export interface RunningCallbackServer {
  /** `http://host:port`, with the port actually bound. */
  baseUrl: string;
  /** Refuses new connections and resolves once the callbacks being received are answered (the PSP resends others). */
  close(): Promise<void>;
}

/**
 * Constant-time comparison of the `token` query parameter. PSPs that append `/pix` to the registered URL textually
 * (rather than to its path) turn `?token=abc` into `?token=abc/pix`, so that suffix is not part of the token.
 */
function tokenMatcher(expected: string): (given: unknown) => boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expectedDigest = digest(expected);
  return (given) =>
    typeof given === 'string' && timingSafeEqual(digest(given.replace(/\/pix$/, '')), expectedDigest);
}

/**
 * Receives the PSP's PIX callbacks at `/webhook` and `/webhook/pix`: Pix received and, on the same webhook of the
 * payer key, Pix sent (payouts). The token authenticates the caller (in
 * production, mTLS at the ingress adds the PSP's certificate). It answers 200 once every item is recorded, or 503
 * when the PSP could not be asked, so the PSP sends the callback again.
 */
export function startCallbackServer(options: CallbackServerOptions): Promise<RunningCallbackServer> {
  const { logger, processor } = options;
  const tokenMatches = tokenMatcher(options.token);
  const app = express();
  app.disable('x-powered-by');
  app.post(
    ['/webhook', '/webhook/pix'],
    (req, _res, next) => next(tokenMatches(req.query.token) ? undefined : new AppError('UNAUTHORIZED')),
    express.json({ limit: '256kb', type: () => true }),
    asyncHandler(async (req, res) => {
      const { items, rejected } = parsePspCallback(req.body);
      if (rejected.length > 0) logger.warn({ rejected }, 'PSP callback items rejected');
      try {
        const outcomes = await processor.process(items);
        await options.sentPix(req.body);
        res.status(200).json({ received: outcomes.length });
      } catch (err) {
        logger.warn({ err }, 'PSP callback not processed, asking the PSP to send it again');
        throw new AppError('SERVICE_UNAVAILABLE');
      }
    }),
  );
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger));
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({ baseUrl: `http://${options.host}:${port}`, close });
    });
    const close = gracefulHttpStop(server);
    server.once('error', reject);
  });
}
