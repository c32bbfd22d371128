import type { Request } from 'express';
import {
  hasSecondFactor,
  verifySecondFactor,
  type SecondFactorDeps,
  type SecondFactorOutcome,
} from '../application/verify-second-factor';
import type { Member } from './member';
import { textOf } from './respond';
import type { SecondFactorState } from './views/security';

/** What a refused code is told, wherever one is asked. */
export const secondFactorMessages: Record<Exclude<SecondFactorOutcome['kind'], 'accepted'>, string> = {
  wrong_code: 'Código incorreto ou já usado. Use o código que o aplicativo mostra agora.',
  locked: 'Verificação bloqueada temporariamente por excesso de códigos errados. Tente de novo mais tarde.',
  too_many_attempts: 'Muitas tentativas a partir deste endereço. Aguarde um minuto.',
  not_enrolled: 'Ative antes a verificação em duas etapas em Segurança.',
};

/**
 * The second factor a money-moving form needs from this member: an owner without one must enrol first; whoever has
 * one confirms the action with a fresh code; others go without.
 */
export async function secondFactorStateOf(
  deps: SecondFactorDeps,
  member: Member,
): Promise<SecondFactorState> {
  if (await hasSecondFactor(deps.dataSource, member.userId)) return 'code';
  return member.role === 'owner' ? 'enrol_first' : 'none';
}

/**
 * Step-up on the server, whatever the form sent: the action goes ahead only with a fresh code of the member's
 * authenticator (accepted once; a recovery code does not count here), or, for a member who has none and is not the
 * owner, without. Answers null when the action may go ahead, else why not (status and message).
 */
export async function stepUp(
  deps: SecondFactorDeps,
  member: Member,
  req: Request,
): Promise<{ status: number; message: string; enrol: boolean } | null> {
  const state = await secondFactorStateOf(deps, member);
  if (state === 'none') return null;
  if (state === 'enrol_first')
    return { status: 403, message: secondFactorMessages.not_enrolled, enrol: true };
  const outcome = await verifySecondFactor(deps, {
    userId: member.userId,
    code: textOf((req.body as { code?: unknown }).code),
    clientAddress: req.ip ?? 'unknown',
    recovery: false,
  });
  if (outcome.kind === 'accepted') return null;
  return {
    status: outcome.kind === 'wrong_code' ? 422 : outcome.kind === 'not_enrolled' ? 403 : 429,
    message: secondFactorMessages[outcome.kind],
    enrol: outcome.kind === 'not_enrolled',
  };
}
