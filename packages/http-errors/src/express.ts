import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from './app-error';

interface Logger {
  error(obj: object, msg?: string): void;
}

/** body-parser's error types for unparseable and oversized bodies. */
function fromBodyParser(err: { type?: unknown; status?: unknown }): AppError | undefined {
  if (err.type === 'entity.parse.failed') return new AppError('INVALID_JSON');
  if (err.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported')
    return new AppError('INVALID_JSON');
  if (err.type === 'request.aborted' || err.type === 'request.size.invalid')
    return new AppError('INVALID_JSON');
  return undefined;
}

export interface ErrorMiddlewareOptions {
  /** Rewrites the message shown for a code (e.g. buyer-facing text on a hosted page); the default keeps it. */
  message?: (error: AppError) => string;
}

/** The one error middleware: every failure leaves as the contract's JSON error shape, never HTML or a stack. */
export function errorMiddleware(logger: Logger, options: ErrorMiddlewareOptions = {}): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const known =
      err instanceof AppError
        ? err
        : typeof err === 'object' && err !== null
          ? fromBodyParser(err as { type?: unknown })
          : undefined;
    const appError = known ?? new AppError('INTERNAL_ERROR');
    if (!known) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) {
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
