import { CommandError } from '@gateway/messaging';
import { PspError } from '../src/clients/psp/psp-error';
import { pspFailure } from '../src/clients/psp/psp-failure';

const replyTo = (error: unknown, refused?: CommandError): { code: string } => {
  try {
    pspFailure(error, refused);
  } catch (err) {
    return { code: (err as CommandError).code };
  }
  throw new Error('pspFailure returned');
};

describe('what a PSP failure is answered to the payment service', () => {
  test('a PSP down, timing out or refusing our credentials is SERVICE_UNAVAILABLE, to be tried again', () => {
    expect(replyTo(new PspError('unavailable', 503, 'down'))).toEqual({ code: 'SERVICE_UNAVAILABLE' });
    expect(replyTo(new PspError('unavailable', null, 'timeout'))).toEqual({ code: 'SERVICE_UNAVAILABLE' });
    expect(replyTo(new PspError('unauthorized', 401, 'token'))).toEqual({ code: 'SERVICE_UNAVAILABLE' });
  });

  test('a refusal of what we sent is INTERNAL_ERROR at once: sending it again fails the same way', () => {
    for (const kind of ['invalid', 'conflict', 'not_found'] as const)
      expect(replyTo(new PspError(kind, 400, 'CobOperacaoInvalida'))).toEqual({ code: 'INTERNAL_ERROR' });
  });

  test('a refusal the caller can act on is answered as such', () => {
    const closed = new CommandError('INVALID_STATUS', 'encerrada no PSP');
    expect(replyTo(new PspError('invalid', 400, 'CobOperacaoInvalida'), closed)).toEqual({
      code: 'INVALID_STATUS',
    });
  });

  test('anything that is not a PSP failure is a defect and goes up as it is', () => {
    const bug = new TypeError('x is undefined');
    expect(() => pspFailure(bug)).toThrow(bug);
  });
});
