import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { MAX_ID_LENGTH } from '@gateway/contracts';
import { histogram, inRequestTrace, type Logger } from '@gateway/observability';

const requestDuration = histogram(
  'http_request_duration_seconds',
  'HTTP requests served by the gateway, by route template and status',
  ['method', 'route', 'status_code'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);

/** The header naming a request: the caller's when it has this shape, else a new UUID; every answer carries it. */
export const REQUEST_ID_HEADER = 'x-request-id';
// It becomes the correlation id of the commands it sends, which an envelope bounds.
export const REQUEST_ID = new RegExp(`^[A-Za-z0-9._:-]{1,${MAX_ID_LENGTH}}$`);

/**
 * Gives each request an id (the caller's `x-request-id` when sane) that becomes the correlation id of the commands
 * it sends, and records its duration under the route template (never the raw path, which would explode cardinality).
 * Everything it does runs in its one trace, with tracing on or off (inRequestTrace).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) =>
    inRequestTrace(req, res, () => {
      const incoming = req.get(REQUEST_ID_HEADER);
      const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.locals.requestId = requestId;
      res.set(REQUEST_ID_HEADER, requestId);
      const stopTimer = requestDuration.startTimer({ method: req.method });
      res.on('finish', () => {
        const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
        stopTimer({ route, status_code: String(res.statusCode) });
        logger.debug(
          { request_id: requestId, method: req.method, route, status: res.statusCode },
          'request served',
        );
      });
      next();
    });
}
