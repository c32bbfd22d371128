import express, { type NextFunction, type Request, type Response } from 'express';
import { type Logger } from '@gateway/observability';
import { RpcError, type Ledger } from './ledger';
import { RPC_METHODS } from './rpc-methods';

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

function handle(ledger: Ledger, logger: Logger, request: RpcRequest): RpcResponse {
  const id = request.id ?? null;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return errorResponse(id, { code: -32600, message: 'Invalid request' });
  }
  const method = RPC_METHODS[request.method];
  if (!method) return errorResponse(id, { code: -32601, message: 'Method not found' });
  const params = Array.isArray(request.params) ? request.params : [];
  try {
    return { jsonrpc: '2.0', id, result: method(ledger, params) };
  } catch (err) {
    if (err instanceof RpcError)
      return errorResponse(id, { code: err.code, message: err.message, data: err.data });
    logger.error({ err, method: request.method }, 'rpc method failed');
    return errorResponse(id, { code: -32603, message: 'Internal error' });
  }
}

/** JSON-RPC 2.0 over HTTP POST /, single and batch requests, as a Solana validator serves it. */
export function createRpcApp(ledger: Ledger, logger: Logger): express.Express {
  const app = express();
  app.use(express.json({ limit: '2mb' }));
  app.post('/', (req: Request, res: Response) => {
    const body: unknown = req.body;
    if (Array.isArray(body)) {
      res.json(body.map((request: RpcRequest) => handle(ledger, logger, request)));
      return;
    }
    res.json(handle(ledger, logger, (body ?? {}) as RpcRequest));
  });
  app.use((err: Error, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    res.status(200).json(errorResponse(null, { code: -32700, message: 'Parse error' }));
  });
  return app;
}
