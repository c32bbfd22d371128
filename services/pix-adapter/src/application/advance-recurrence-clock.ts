import type { AdvancePixRecurrenceClock } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { nextClockStop } from '../domain/recurrence';
import { ChargeEntity } from '../persistence';
import { pspFailure } from '../clients/psp/psp-failure';
import { followCycle, type FollowRecurrenceDeps } from './follow-recurrence';
import type { SimulateRecurrenceDeps } from './simulate-recurrence';
import { openedRecurrence } from './shared/opened-recurrence';

/**
 * Sandbox only: the recurrence's own clock at the PSP moves forward to `to`; what falls due happens and its callbacks
 * come as in production. The adapter steps the clock itself (`nextClockStop`): straight over days with no open cycle,
 * a day at a time across each open cycle's due date and retry window, following its open cycles after each day as the
 * poll does (the cobr read, applied, its retry asked for) before the next, so a failed attempt gets its retries as
 * a PSP's real days allow. Moving it back is INVALID_FIELDS.
 */
export async function advanceRecurrenceClock(
  deps: FollowRecurrenceDeps & Pick<SimulateRecurrenceDeps, 'appEnv'>,
  command: AdvancePixRecurrenceClock,
): Promise<{ today: string }> {
  if (deps.appEnv !== 'sandbox') throw new CommandError('NOT_FOUND', 'Recurso não encontrado.');
  const recurrence = await openedRecurrence(deps.dataSource, command.subscription_id);
  const client = await deps.psp.forAccount(recurrence.pspAccountId);
  const moveTo = (day: string) =>
    client
      .sandboxAdvanceRecurrence(recurrence.idRec, day)
      .catch((err: unknown) =>
        pspFailure(err, new CommandError('INVALID_FIELDS', 'Campos inválidos: to (o relógio só avança).')),
      );
  /** Follows the recurrence's open cycles; answers the due dates of those still open at the PSP. */
  const followOpenCycles = async (): Promise<string[]> => {
    const open = await deps.dataSource.manager.findBy(ChargeEntity, {
      subscriptionId: command.subscription_id,
      kind: 'cobr',
      status: 'active',
    });
    const dueDates: string[] = [];
    for (const charge of open) {
      const cobr = await client.getCycle(charge.txid).catch((err: unknown) => pspFailure(err));
      await followCycle(deps, charge, cobr);
      if (cobr.status === 'CRIADA' || cobr.status === 'ATIVA')
        dueDates.push(cobr.calendario.dataDeVencimento);
    }
    return dueDates;
  };
  let today = await client.sandboxRecurrenceToday(recurrence.idRec).catch((err: unknown) => pspFailure(err));
  // Back: the PSP refuses it.
  if (command.to < today) return { today: await moveTo(command.to) };
  let dueDates = await followOpenCycles();
  do {
    today = await moveTo(nextClockStop(today, command.to, dueDates));
    dueDates = await followOpenCycles();
  } while (today < command.to);
  return { today };
}
