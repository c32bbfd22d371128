import { randomUUID } from 'node:crypto';
import { CompactSign, type JWK, type KeyLike, exportJWK, generateKeyPair } from 'jose';

/** Where the simulator publishes the public key of its payload signatures (a JWKS, as the JWS header's `jku`). */
export const JWKS_PATH = '/jwks.json';

const ALGORITHM = 'RS256';

/**
 * Signs cob payloads as the Pix security manual asks of a receiving PSP: a compact JWS whose header names the key
 * (`kid`) and where its JWKS is published (`jku`), so a payer's bank can check the payload came from the PSP. A real
 * PSP signs with its ICP-Brasil certificate's key over HTTPS; the simulator makes a key pair when it is created.
 */
export class PayloadSigner {
  private readonly keys: Promise<{ privateKey: KeyLike; publicJwk: JWK }> = generateKeyPair(ALGORITHM).then(
    async ({ privateKey, publicKey }) => ({
      privateKey,
      publicJwk: { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' },
    }),
  );

  /** `{keys: [...]}` for `GET /jwks.json`. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: [(await this.keys).publicJwk] };
  }

  /** The payload as a compact JWS; `jwksUrl` is where the caller can fetch the key (built from its Host). */
  async sign(payload: Record<string, unknown>, jwksUrl: string): Promise<string> {
    const { privateKey, publicJwk } = await this.keys;
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: ALGORITHM, kid: publicJwk.kid, jku: jwksUrl })
      .sign(privateKey);
  }
}
