import { type Dispatcher, request } from 'undici';
import { PspError } from './psp-error';

export interface HttpCall {
  method: Dispatcher.HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface HttpReply {
  status: number;
  /** Parsed JSON when the PSP sent JSON, otherwise the raw text (or undefined when empty). */
  body: unknown;
  retryAfter: string | undefined;
}

/** One HTTP exchange; a failure before any response (refused, reset, timeout) becomes a retryable PspError. */
export async function send(dispatcher: Dispatcher, call: HttpCall): Promise<HttpReply> {
  try {
    const response = await request(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      dispatcher,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    const text = await response.body.text();
    const contentType = String(response.headers['content-type'] ?? '');
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      body: text.length > 0 && contentType.includes('json') ? parseJson(text) : text || undefined,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    };
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new PspError('unavailable', null, `${call.method} ${call.url} failed: ${reason}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
