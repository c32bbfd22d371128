import type { DataSource } from 'typeorm';
import type { PspAccountOf, PspAccountView } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { pspAccountView } from '../domain/psp-account';
import { accountInForce } from '../persistence/psp-account-store';

/** `pix.psp-account.get.v1`: the business's own PSP account without any secret; NOT_FOUND when it uses the platform's. */
export function handleGetPspAccount(deps: { dataSource: DataSource }) {
  return async (query: PspAccountOf): Promise<PspAccountView> => {
    const account = await accountInForce(deps.dataSource.manager, query.business_id);
    if (!account) throw new CommandError('NOT_FOUND', 'A empresa usa a conta PSP da plataforma.');
    return pspAccountView(account);
  };
}
