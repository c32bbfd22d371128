import { randomBytes } from 'node:crypto';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { newPublicId, type PayoutRequested } from '@gateway/contracts';
import { SANDBOX_PIX_KEY } from '../../src/config';
import { type ApiPixClient } from '../../src/clients/psp/api-pix-client';
import { PixPayoutPort } from '../../src/clients/psp/envio';
import { generateTxid } from '../../src/domain/txid';

/** A valid `payout.requested.v1` for a new payout; a test states only what matters to it. */
export const aPayoutRequested = (overrides: Partial<PayoutRequested> = {}): PayoutRequested => ({
  payout_id: newPublicId('po'),
  business_id: newPublicId('biz'),
  amount_centavos: 1500,
  destination: { pix_key: '12345678909', pix_key_type: 'cpf', holder_document: '12345678909' },
  requested_at: new Date().toISOString(),
  ...overrides,
});

/**
 * The PSP's console for the sandbox account's sends (Efí envio de Pix), outside the adapter under test: what the PSP
 * holds under an idEnvio, and the account's balance. No retries: a test sees each answer.
 */
export function sandboxSendsConsole(pspUrl: string): PixPayoutPort {
  return new PixPayoutPort({
    baseUrl: pspUrl,
    oauthTokenUrl: `${pspUrl}/oauth/token`,
    clientId: SANDBOX_PSP_CLIENT.id,
    clientSecret: SANDBOX_PSP_CLIENT.secret,
    timeoutMs: 2000,
    maxRetries: 0,
  });
}

/** Brings `centavos` into the sandbox account, as a customer paying a cob would. */
export async function fundSandboxAccount(payer: ApiPixClient, centavos: number): Promise<void> {
  const txid = generateTxid(randomBytes);
  await payer.createCharge(txid, { expiracaoSeconds: 3600, valorCentavos: centavos, chave: SANDBOX_PIX_KEY });
  await payer.sandboxPay(txid, null);
}
