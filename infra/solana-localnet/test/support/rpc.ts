export interface RpcAnswer {
  /** The HTTP status (a rate-limited node answers 429). */
  status: number;
  retryAfter: string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

/** One JSON-RPC call as a client sends it over HTTP. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as Pick<RpcAnswer, 'result' | 'error'>;
  return { ...body, status: response.status, retryAfter: response.headers.get('retry-after') };
}
