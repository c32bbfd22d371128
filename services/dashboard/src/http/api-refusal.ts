import { isGatewayError } from '@gateway/sdk';

/**
 * The public API's refusal of what a person asked (a bad field, a status that does not allow it), to be shown on the
 * page as the API words it; null for what the error handler answers instead (not found, too many requests, the
 * gateway failing).
 */
export function apiRefusal(err: unknown): { status: number; message: string } | null {
  if (!isGatewayError(err) || err.status === 404 || err.status === 429 || err.status >= 500) return null;
  return { status: err.status, message: err.message };
}

/** Runs `action`; a refusal of the public API is answered as a value, anything else is thrown on. */
export async function refusedOr<T>(
  action: () => Promise<T>,
): Promise<{ ok: T } | { refused: { status: number; message: string } }> {
  try {
    return { ok: await action() };
  } catch (err) {
    const refused = apiRefusal(err);
    if (!refused) throw err;
    return { refused };
  }
}
