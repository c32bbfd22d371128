import { compactVerify, createRemoteJWKSet, decodeProtectedHeader } from 'jose';

/**
 * What a payer's bank app does with the location of a dynamic BR Code: fetch `https://<location>` (here `http://`),
 * expect a JWS (`application/jose`), verify it with the key its header names (`jku` + `kid`), and read the cob payload.
 */
export async function fetchPayload(location: string): Promise<Record<string, unknown>> {
  const response = await fetch(`http://${location}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`payload location answered ${response.status}: ${text}`);
  if (!response.headers.get('content-type')?.startsWith('application/jose'))
    throw new Error(
      `payload location answered ${response.headers.get('content-type')}, not application/jose`,
    );
  const header = decodeProtectedHeader(text);
  if (typeof header.jku !== 'string' || header.kid === undefined)
    throw new Error(`JWS header without jku and kid: ${JSON.stringify(header)}`);
  const keys = createRemoteJWKSet(new URL(header.jku));
  const { payload } = await compactVerify(text, keys);
  return JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
}
