import type { DataSource } from 'typeorm';
import type { SubmitPixMedDefence } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { pspFailure } from '../clients/psp/psp-failure';
import type { PspAccounts } from '../clients/psp/psp-accounts';
import { medOfPayment } from '../persistence/med-store';

export interface DefendMedDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: Pick<PspAccounts, 'defendMed'>;
}

/** How far before the MED reached us its infraction may have been opened at the PSP. */
const INFRACTION_LEAD_MS = 24 * 60 * 60 * 1000;

const defences = counter(
  'pix_med_defences_total',
  'Defences of MEDs sent to the PSP, by outcome: submitted, unsupported (the profile takes none), no_infraction',
  ['outcome'],
);

const notSupported = () =>
  new CommandError(
    'DEFENCE_NOT_SUPPORTED',
    'O provedor PIX desta disputa não recebe defesa pela API: conteste o MED pelo canal do provedor.',
  );

/**
 * Sends the business's defence of a MED to the PSP account the Pix was paid into, through its profile's `medDefence`
 * (docs/adr/0033-med-disputes.md#decision). The PSP is called outside any transaction; the answer commits with the
 * inbox row, so a redelivered command answers it without calling the PSP again. A MED this adapter does not know is
 * NOT_FOUND, one already ended INVALID_STATUS; a profile without `medDefence` DEFENCE_NOT_SUPPORTED; a PSP that lists
 * no infraction for the Pix, or refuses the defence, INVALID_STATUS; a PSP out of reach SERVICE_UNAVAILABLE.
 */
export async function defendMed(
  deps: DefendMedDeps,
  command: SubmitPixMedDefence,
  context: MessageContext,
): Promise<{ submitted: true }> {
  const stored = await deps.uow.storedResult<{ submitted: true }>(context);
  if (stored) return stored.value;
  const med = await medOfPayment(
    deps.dataSource.manager,
    command.payment_id,
    command.end_to_end_id,
    command.devolucao_id,
  );
  if (!med) throw new CommandError('NOT_FOUND', 'MED não encontrado.');
  if (med.status !== 'EM_PROCESSAMENTO')
    throw new CommandError('INVALID_STATUS', `Operação não permitida: o MED está ${med.status}.`);
  const since = new Date(new Date(med.created_at).getTime() - INFRACTION_LEAD_MS);
  const outcome = await deps.psp
    .defendMed(command.end_to_end_id, command.text, since)
    .catch((error: unknown) =>
      pspFailure(error, new CommandError('INVALID_STATUS', 'O PSP recusou a defesa do MED.')),
    );
  defences.inc({ outcome });
  if (outcome === 'unsupported') throw notSupported();
  if (outcome === 'no_infraction')
    throw new CommandError(
      'INVALID_STATUS',
      'Operação não permitida: o PSP não tem infração aberta para este Pix.',
    );
  context.logger.info(
    { payment_id: command.payment_id, devolucao_id: command.devolucao_id },
    'MED defence sent to the PSP',
  );
  return deps.uow.once(context, async () => ({ submitted: true as const }));
}
