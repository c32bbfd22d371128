import { roleLabels, type Role } from './roles';

/** A mail as the dashboard sends it: plain text in Portuguese, one link. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export function verificationMail(to: string, link: string): OutgoingMail {
  return {
    to,
    subject: 'Confirme seu e-mail',
    text: [
      'Olá,',
      '',
      'Confirme que este e-mail é seu para usar o painel do gateway de pagamentos:',
      link,
      '',
      'O link vale por 48 horas. Se você não criou uma conta, ignore esta mensagem.',
    ].join('\n'),
  };
}

export function passwordResetMail(to: string, link: string): OutgoingMail {
  return {
    to,
    subject: 'Redefinição de senha',
    text: [
      'Olá,',
      '',
      'Recebemos um pedido para redefinir a senha do painel com este e-mail. Para criar uma nova senha:',
      link,
      '',
      'O link vale por 1 hora e funciona uma só vez. Se não foi você, ignore esta mensagem: sua senha continua a mesma.',
    ].join('\n'),
  };
}

export function invitationMail(
  to: string,
  link: string,
  invitation: { businessName: string; role: Role; invitedBy: string },
): OutgoingMail {
  return {
    to,
    subject: `Convite para ${invitation.businessName}`,
    text: [
      'Olá,',
      '',
      `${invitation.invitedBy} convidou você para a equipe de ${invitation.businessName} no painel do gateway de ` +
        `pagamentos, com o papel ${roleLabels[invitation.role]}. Para aceitar:`,
      link,
      '',
      'O convite vale por 7 dias e funciona uma só vez.',
    ].join('\n'),
  };
}

export function operatorInvitationMail(to: string, link: string, invitedBy: string | null): OutgoingMail {
  return {
    to,
    subject: 'Convite para operar o gateway',
    text: [
      'Olá,',
      '',
      `${invitedBy ?? 'A equipe da plataforma'} convidou você para o console de operação do gateway de pagamentos. ` +
        'Para criar a sua senha:',
      link,
      '',
      'O convite vale por 7 dias e funciona uma só vez. Depois da senha, ative a verificação em duas etapas: o ' +
        'console a exige.',
    ].join('\n'),
  };
}
