import { type RequestHandler } from 'express';
import { sendProblem } from './problem';

/**
 * How a real PSP misbehaves, for tests:
 * - `rate-limit`: 429, with `Retry-After` when `retryAfterSeconds` is given (gateways often send none);
 * - `server-error`: 503 `ServicoIndisponivel` (or 500 `ErroInternoDoServidor`), nothing done;
 * - `slow`: the request is handled after `delayMs`;
 * - `lost-answer`: the request is handled (a cob is created, a Pix refunded...) and the connection is then cut
 *   before any answer, like a timeout or a reset on the way back;
 * - `answer`: this status and JSON body instead of handling the request (an answer the PSP could give, out of turn).
 */
export type Fault =
  | { kind: 'rate-limit'; retryAfterSeconds?: number }
  | { kind: 'server-error'; status?: 500 | 503 }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'lost-answer' }
  | { kind: 'answer'; status: number; body: Record<string, unknown> };

export interface FaultRule {
  fault: Fault;
  /** How many matching requests get it. */
  count: number;
  /** Only requests with this method (e.g. `PUT`)... */
  method?: string;
  /** ...and a path (with the API Pix prefix) this matches. */
  path?: RegExp;
}

/** Faults armed by tests, each served to the next matching requests, in the order they were armed. */
export class FaultInjector {
  private readonly rules: FaultRule[] = [];
  private readonly seen: string[] = [];

  inject(rule: FaultRule): void {
    this.rules.push({ ...rule });
  }

  clear(): void {
    this.rules.length = 0;
  }

  /** How many requests with this method and a path `path` matches reached the simulator (faulted or not). */
  requestsSeen(method: string, path: RegExp): number {
    return this.seen.filter(
      (line) => line.startsWith(`${method} `) && path.test(line.slice(method.length + 1)),
    ).length;
  }

  middleware(): RequestHandler {
    return (req, res, next) => {
      if (this.seen.length < 10_000) this.seen.push(`${req.method} ${req.path}`);
      const rule = this.rules.find(
        (candidate) =>
          (candidate.method === undefined || candidate.method === req.method) &&
          (candidate.path === undefined || candidate.path.test(req.path)),
      );
      if (!rule) return next();
      rule.count -= 1;
      if (rule.count <= 0) this.rules.splice(this.rules.indexOf(rule), 1);
      const { fault } = rule;
      switch (fault.kind) {
        case 'rate-limit':
          if (fault.retryAfterSeconds !== undefined) res.set('retry-after', String(fault.retryAfterSeconds));
          // API Pix documents no 429 (rate limits live in each PSP's gateway): RFC 7807's untyped problem.
          res
            .status(429)
            .type('application/problem+json')
            .send(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429 }));
          return;
        case 'server-error':
          if ((fault.status ?? 503) === 503)
            sendProblem(
              res,
              503,
              'ServicoIndisponivel',
              'Serviço indisponível.',
              'Tente novamente mais tarde.',
            );
          else sendProblem(res, 500, 'ErroInternoDoServidor', 'Erro interno do servidor.');
          return;
        case 'slow':
          setTimeout(next, fault.delayMs);
          return;
        case 'answer':
          res.status(fault.status).json(fault.body);
          return;
        case 'lost-answer':
          res.end = (() => {
            req.socket.destroy();
            return res;
          }) as typeof res.end;
          next();
          return;
      }
    };
  }
}
