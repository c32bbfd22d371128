import express, { type NextFunction, type Request, type Response } from 'express';
import { type Logger } from '@gateway/observability';
import { RpcError, type Ledger } from './ledger';
import { RPC_METHODS } from './rpc-methods';
import { RateLimiter, type Refusal, type RpcModes } from './rpc-modes';

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type RpcResponse = { jsonrpc: '2.0'; id: unknown } & ({ result: unknown } | { error: RpcErrorBody });
interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

function errorResponse(id: unknown, error: RpcErrorBody): RpcResponse {
  return { jsonrpc: '2.0', id, error };
}

function handle(ledger: Ledger, modes: RpcModes, logger: Logger, request: RpcRequest): RpcResponse {
  const id = request.id ?? null;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return errorResponse(id, { code: -32600, message: 'Invalid request' });
  }
  const method = RPC_METHODS[request.method];
  if (!method) return errorResponse(id, { code: -32601, message: 'Method not found' });
  const params = Array.isArray(request.params) ? request.params : [];
  try {
    return { jsonrpc: '2.0', id, result: method(ledger, params, modes) };
  } catch (err) {
    if (err instanceof RpcError)
      return errorResponse(id, { code: err.code, message: err.message, data: err.data });
    logger.error({ err, method: request.method }, 'rpc method failed');
    return errorResponse(id, { code: -32603, message: 'Internal error' });
  }
}

/** What the node answered, for tests: requests served per method, requests refused over budget. */
export class RpcTraffic {
  refused = 0;
  private readonly served = new Map<string, number>();

  count(method: string): void {
    this.served.set(method, this.servedOf(method) + 1);
  }

  servedOf(method: string): number {
    return this.served.get(method) ?? 0;
  }
}

/** A provider's answer over budget: HTTP 429 with a JSON-RPC error body, with or without Retry-After. */
function refuse(res: Response, refusal: NonNullable<Refusal>, id: unknown): void {
  if (refusal.retryAfterSeconds !== null) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  res
    .status(429)
    .json(errorResponse(id, { code: 429, message: 'Too many requests for a specific RPC call' }));
}

/**
 * JSON-RPC 2.0 over HTTP POST /, single and batch requests, as a Solana validator serves it, behind the rate limit
 * of `modes` when it has one (a batch is refused whole when any of its requests is over budget).
 */
export function createRpcApp(
  ledger: Ledger,
  modes: RpcModes,
  logger: Logger,
  traffic: RpcTraffic = new RpcTraffic(),
): express.Express {
  const app = express();
  const limiter = new RateLimiter(() => modes.rateLimit);
  app.use(express.json({ limit: '2mb' }));
  app.post('/', (req: Request, res: Response) => {
    const body: unknown = req.body;
    const requests = (Array.isArray(body) ? body : [body ?? {}]) as RpcRequest[];
    for (const request of requests) {
      const refusal = limiter.admit(String(request.method));
      if (refusal) {
        traffic.refused += 1;
        return refuse(res, refusal, Array.isArray(body) ? null : (request.id ?? null));
      }
    }
    for (const request of requests) traffic.count(String(request.method));
    const answers = requests.map((request) => handle(ledger, modes, logger, request));
    res.json(Array.isArray(body) ? answers : answers[0]);
  });
  app.use((err: Error, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    res.status(200).json(errorResponse(null, { code: -32700, message: 'Parse error' }));
  });
  return app;
}
