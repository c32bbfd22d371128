import { CommandError } from '@gateway/messaging';
import { PspError } from './psp/psp-error';

const UNAVAILABLE = 'O provedor PIX não respondeu. Tente novamente.';

/**
 * Turns a PSP failure into the reply the payment service understands: unavailability -> SERVICE_UNAVAILABLE; a cob
 * the PSP refuses to change -> `refused` (e.g. INVALID_STATUS). Anything else is rethrown as a bug.
 */
export function pspFailure(error: unknown, refused?: CommandError): never {
  if (!(error instanceof PspError)) throw error;
  if (refused && (error.kind === 'invalid' || error.kind === 'conflict' || error.kind === 'not_found'))
    throw refused;
  throw new CommandError('SERVICE_UNAVAILABLE', UNAVAILABLE);
}
