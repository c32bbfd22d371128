import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { AppError } from '@gateway/http-errors';

const MALFORMED_REQUEST = 'A requisição HTTP está malformada.';

/**
 * Requests node's HTTP parser refuses before express sees them (a NUL or other invalid byte in a header, a malformed
 * request line, oversized headers) still get the contract's JSON error shape instead of a bare `400` without a body.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('PAYLOAD_TOO_LARGE', 'Os cabeçalhos da requisição excedem o limite.')
      : new AppError('INVALID_JSON', MALFORMED_REQUEST);
  const body = JSON.stringify(error.body());
  socket.end(
    `HTTP/1.1 ${error.status} ${error.status === 400 ? 'Bad Request' : 'Payload Too Large'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * HTTP/1.1 requires a Host header. Node refuses a request without one with a bare 400 unless the server is created
 * with `requireHostHeader: false` (main.ts does), so the refusal is made here, in the contract's shape.
 */
export const requireHostHeader: RequestHandler = (req, _res, next) => {
  const missing = req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && !req.headers.host;
  next(missing ? new AppError('INVALID_JSON', MALFORMED_REQUEST) : undefined);
};
