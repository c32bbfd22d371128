import type { DataSource } from 'typeorm';
import { CommandError } from '@gateway/messaging';
import { RecurrenceEntity } from '../../persistence';

export const notFound = () => new CommandError('NOT_FOUND', 'Recorrência não encontrada.');
export const invalidStatus = (detail: string) =>
  new CommandError('INVALID_STATUS', `Operação não permitida: a recorrência ${detail}.`);

/** The subscription's recurrence once the PSP named it; NOT_FOUND otherwise. */
export async function openedRecurrence(
  dataSource: DataSource,
  subscriptionId: string,
): Promise<RecurrenceEntity & { idRec: string }> {
  const recurrence = await dataSource.manager.findOneBy(RecurrenceEntity, { subscriptionId });
  if (!recurrence || recurrence.idRec === null) throw notFound();
  return recurrence as RecurrenceEntity & { idRec: string };
}
