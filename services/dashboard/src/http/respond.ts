import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { renderDocument, type Markup } from './views/html';

/** Sends a page; pages are personal, so no cache keeps them. */
export function sendPage(res: Response, status: number, page: Markup): void {
  res.status(status).set('cache-control', 'no-store').type('html').send(renderDocument(page));
}

/** An async route whose failure goes to the error handler (express 4 does not await handlers). */
export function route(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };
}

/** A query or form value as one string ('' when absent or repeated). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
