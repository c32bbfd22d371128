import { CommandError } from '@gateway/messaging';
import { PspError, isPspRefusal } from './psp-error';

const UNAVAILABLE = 'O provedor PIX não respondeu. Tente novamente.';

/**
 * Turns a PSP failure into the reply the payment service understands: unavailability (or credentials the PSP refuses
 * for now) -> SERVICE_UNAVAILABLE, retried; a cob the PSP refuses to change -> `refused` (e.g. INVALID_STATUS); any other
 * refusal of what we sent fails the same way every time -> INTERNAL_ERROR at once. Anything else is rethrown as a bug.
 */
export function pspFailure(error: unknown, refused?: CommandError): never {
  if (!(error instanceof PspError)) throw error;
  if (!isPspRefusal(error)) throw new CommandError('SERVICE_UNAVAILABLE', UNAVAILABLE);
  if (refused) throw refused;
  throw new CommandError('INTERNAL_ERROR', `O provedor PIX recusou a operação: ${error.detail}`);
}
