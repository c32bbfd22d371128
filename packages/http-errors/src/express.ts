import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError } from './app-error';

/** body-parser's error types for unparseable, oversized, undecodable or refused bodies. */
function fromBodyParser(type: unknown): AppError | undefined {
  switch (type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'entity.verify.failed':
      // The only check our parsers run on raw bytes is that they are UTF-8.
      return new AppError('INVALID_JSON', 'O corpo da requisição não está em UTF-8 válido.');
    case 'entity.parse.failed':
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('INVALID_JSON');
    default:
      return undefined;
  }
}

/**
 * Errors thrown by express and its parsers before any handler ran (never with details worth logging): a path with
 * malformed percent-encoding (URIError, 400) names nothing that exists, so it is NOT_FOUND; a body that could not be
 * read (bad compression, unknown encoding or charset) is INVALID_JSON; any other 4xx stays a client error.
 */
function fromFramework(err: object): AppError | undefined {
  const { type, status } = err as { type?: unknown; status?: unknown };
  const known = fromBodyParser(type);
  if (known) return known;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (err instanceof URIError || status === 404) return new AppError('NOT_FOUND');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE');
  return new AppError('INVALID_JSON');
}

/**
 * Whether a failure that is not an AppError is a dependency's passing fault (database, cache or broker unreachable,
 * restarting or too slow) rather than a defect: such a failure is answered SERVICE_UNAVAILABLE, never INTERNAL_ERROR.
 */
export type TransientFailureTest = (err: unknown) => boolean;

/** The public error a failure is answered with, and whether it was expected (anything else is worth logging). */
export function toAppError(
  err: unknown,
  isTransient: TransientFailureTest = () => false,
): { error: AppError; expected: boolean } {
  if (err instanceof AppError) return { error: err, expected: true };
  const framework = typeof err === 'object' && err !== null ? fromFramework(err) : undefined;
  if (framework) return { error: framework, expected: true };
  if (isTransient(err)) return { error: new AppError('SERVICE_UNAVAILABLE'), expected: false };
  return { error: new AppError('INTERNAL_ERROR'), expected: false };
}

export interface ErrorMiddlewareOptions {
  /** Rewrites the message shown for a code (e.g. buyer-facing text on a hosted page); the default keeps it. */
  message?: (error: AppError) => string;
  /** Recognises dependency faults; without it every unexpected failure is INTERNAL_ERROR. */
  isTransient?: TransientFailureTest;
}

interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * A body that could not be read because the client's connection broke: it went away mid-body, or node's parser refused
 * a malformed body (a bad chunk size) and closed it. body-parser then fails with `stream.not.readable` (500) or
 * `request.aborted`; either is the client's fault, never a defect worth a log.
 */
function isBrokenRequestBody(err: unknown, req: Request): boolean {
  const { type } = (typeof err === 'object' && err !== null ? err : {}) as { type?: unknown };
  const unreadable = type === 'stream.not.readable' || type === 'request.aborted';
  return unreadable && (req.readableAborted || req.socket.destroyed);
}

/** The one error middleware: every failure leaves as the contract's JSON error shape, never HTML or a stack. */
export function errorMiddleware(logger: Logger, options: ErrorMiddlewareOptions = {}): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const { error: appError, expected } = isBrokenRequestBody(err, req)
      ? { error: new AppError('INVALID_JSON'), expected: true }
      : toAppError(err, options.isTransient);
    if (!expected) {
      const context = { err, method: req.method, path: req.path };
      if (appError.status === 503) logger.warn(context, 'dependency unavailable');
      else logger.error(context, 'unhandled error');
    }
    // Nothing can be answered on a connection that is gone (node answered a malformed request itself).
    if (res.headersSent || req.socket.destroyed) {
      res.destroy();
      return;
    }
    const body = appError.body();
    if (options.message) body.error.message = options.message(appError);
    res.status(appError.status).set(appError.headers).json(body);
  };
}

/** Unknown routes are NOT_FOUND in the contract's shape. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new AppError('NOT_FOUND'));

/** Express 4 does not catch rejected promises: route handlers go through this. */
export function asyncHandler(fn: RequestHandler): RequestHandler {
  return (req, res, next) => {
    Promise.resolve(fn(req, res, next)).catch(next);
  };
}
