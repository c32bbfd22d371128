import type { Logger } from '@gateway/observability';
import type { PspAccounts } from '../clients/psp/psp-accounts';
import type { PspAccountEntity } from '../persistence';
import { registerPspWebhook } from './register-psp-webhook';

export interface AccountWebhooksDeps {
  accounts: Pick<PspAccounts, 'forAccount'>;
  /** The callback URL of one account: a path of its own, the callback token included (never log it). */
  callbackUrlOf: (accountId: string) => string;
  logger: Logger;
}

/**
 * Keeps each business's own PSP account's webhook registered at that account's PSP for its receiving key, on the
 * account's own callback path: at start for every account in force, and whenever the operator sets one (a changed
 * account replaces its registration, retrying in the background while its PSP is down).
 */
export class AccountWebhooks {
  private readonly registrations = new Map<string, { stop(): Promise<void> }>();

  constructor(private readonly deps: AccountWebhooksDeps) {}

  async registerAll(accounts: PspAccountEntity[]): Promise<void> {
    await Promise.all(accounts.map((account) => this.register(account)));
  }

  async register(account: PspAccountEntity): Promise<void> {
    const { accounts, callbackUrlOf, logger } = this.deps;
    await this.registrations.get(account.accountId)?.stop();
    const client = await accounts.forAccount(account.accountId);
    const registration = await registerPspWebhook(
      client,
      account.pixKey,
      callbackUrlOf(account.accountId),
      logger.child({ psp_account_id: account.accountId }),
    );
    this.registrations.set(account.accountId, registration);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.registrations.values()].map((registration) => registration.stop()));
    this.registrations.clear();
  }
}
