import { PASSWORD_MIN_LENGTH } from '../../domain/password';
import { roleLabels, type Role } from '../../domain/roles';
import { field } from './auth';
import { alert, csrfField, publicPage } from './layout';
import { html, type Markup } from './html';

/** A link's token carried by its form (the link was a GET: nothing changes until the person confirms). */
const tokenField = (token: string): Markup => html`<input type="hidden" name="token" value=${token} />`;

const newPasswordField = (label: string, error?: string): Markup =>
  field('senha', label, {
    type: 'password',
    name: 'password',
    autocomplete: 'new-password',
    minlength: PASSWORD_MIN_LENGTH,
    error,
  });

export function invalidLinkPage(what: string): Markup {
  return publicPage(
    'Link inválido',
    html`<p role="alert">${what} é inválido, expirou ou já foi usado.</p>
      <p><a href="/entrar">Ir para a entrada do painel</a></p>`,
  );
}

export function verifyEmailPage(options: { csrfToken: string; token: string }): Markup {
  return publicPage(
    'Confirmar e-mail',
    html`<p>Confirme que este e-mail é seu.</p>
      <form method="post" action="/verificar-email">
        ${csrfField(options.csrfToken)} ${tokenField(options.token)}
        <button type="submit">Confirmar e-mail</button>
      </form>`,
  );
}

export function emailVerifiedPage(signedIn: boolean): Markup {
  return publicPage(
    'E-mail verificado',
    html`<p role="status">Seu e-mail foi verificado.</p>
      <p><a href=${signedIn ? '/pagamentos' : '/entrar'}>Continuar para o painel</a></p>`,
  );
}

export function forgotPasswordPage(options: {
  csrfToken: string;
  email?: string;
  sent?: boolean;
  error?: string;
}): Markup {
  return publicPage(
    'Esqueci minha senha',
    html`${alert('error', options.error)}
      ${
        options.sent
          ? alert(
              'notice',
              'Se houver uma conta com este e-mail, enviamos para ele um link para criar uma nova senha. O link vale por 1 hora.',
            )
          : html`<p>Informe o e-mail da sua conta: enviaremos um link para criar uma nova senha.</p>`
      }
      <form method="post" action="/esqueci-senha">
        ${csrfField(options.csrfToken)}
        ${field('email', 'E-mail', { type: 'email', name: 'email', autocomplete: 'username', value: options.email })}
        <button type="submit">Enviar link</button>
      </form>
      <p><a href="/entrar">Voltar para a entrada</a></p>`,
  );
}

export function resetPasswordPage(options: { csrfToken: string; token: string; error?: string }): Markup {
  return publicPage(
    'Nova senha',
    html`<form method="post" action="/redefinir-senha">
      ${csrfField(options.csrfToken)} ${tokenField(options.token)}
      ${newPasswordField('Nova senha', options.error)}
      <button type="submit">Salvar nova senha</button>
    </form>`,
  );
}

export function acceptInvitationPage(options: {
  csrfToken: string;
  token: string;
  email: string;
  role: Role;
  hasAccount: boolean;
  error?: string;
}): Markup {
  return publicPage(
    'Aceitar convite',
    html`${alert('error', options.error)}
      <p>Convite para <strong>${options.email}</strong> com o papel ${roleLabels[options.role]}.</p>
      <p>
        ${
          options.hasAccount
            ? 'Este e-mail já tem uma conta: entre com a sua senha para aceitar.'
            : 'Crie a senha da sua conta para aceitar.'
        }
      </p>
      <form method="post" action="/convites/aceitar">
        ${csrfField(options.csrfToken)} ${tokenField(options.token)}
        ${
          options.hasAccount
            ? field('senha', 'Senha', {
                type: 'password',
                name: 'password',
                autocomplete: 'current-password',
              })
            : newPasswordField('Crie uma senha', undefined)
        }
        <button type="submit">Aceitar convite</button>
      </form>`,
  );
}
