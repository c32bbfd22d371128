import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { ApiPixClient } from '../../src/clients/psp/api-pix-client';

/**
 * A client of the PSP simulator under its sandbox credentials, acting as a payer's bank or the PSP's console (paying
 * or removing a cob, reading what the PSP holds), outside the adapter under test. No retries: a test sees each answer.
 */
export function sandboxPayer(pspUrl: string): ApiPixClient {
  return new ApiPixClient({
    baseUrl: pspUrl,
    pathPrefix: '/v2',
    oauthTokenUrl: `${pspUrl}/oauth/token`,
    clientId: SANDBOX_PSP_CLIENT.id,
    clientSecret: SANDBOX_PSP_CLIENT.secret,
    timeoutMs: 2000,
    maxRetries: 0,
  });
}
