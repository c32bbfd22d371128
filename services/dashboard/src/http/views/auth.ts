import type { SignUpForm } from '../../domain/sign-up-form';
import { alert, csrfField, publicPage } from './layout';
import { html, type Markup } from './html';

export function field(
  id: string,
  label: string,
  input: {
    type: string;
    name: string;
    autocomplete: string;
    value?: string;
    error?: string;
    minlength?: number;
  },
): Markup {
  const errorId = `${id}-erro`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input
      id=${id}
      type=${input.type}
      name=${input.name}
      autocomplete=${input.autocomplete}
      value=${input.value}
      minlength=${input.minlength}
      required
      aria-invalid=${input.error ? 'true' : undefined}
      aria-describedby=${input.error ? errorId : undefined}
    />
    ${input.error ? html`<p class="field-error" id=${errorId}>${input.error}</p>` : null}
  </div>`;
}

export function signUpPage(options: {
  csrfToken: string;
  given?: Partial<SignUpForm>;
  errors?: Partial<Record<keyof SignUpForm, string>>;
  error?: string;
}): Markup {
  const errors = options.errors ?? {};
  return publicPage(
    'Criar conta',
    html`${alert('error', options.error)}
      <p>Crie a conta da sua empresa no sandbox: pagamentos de teste, nenhum dinheiro de verdade.</p>
      <form method="post" action="/cadastro" novalidate>
        ${csrfField(options.csrfToken)}
        ${field('nome-empresa', 'Nome da empresa', {
          type: 'text',
          name: 'company_name',
          autocomplete: 'organization',
          value: options.given?.companyName,
          error: errors.companyName,
        })}
        ${field('email', 'E-mail', {
          type: 'email',
          name: 'email',
          autocomplete: 'email',
          value: options.given?.email,
          error: errors.email,
        })}
        ${field('senha', 'Senha', {
          type: 'password',
          name: 'password',
          autocomplete: 'new-password',
          minlength: 10,
          error: errors.password,
        })}
        <button type="submit">Criar conta</button>
      </form>
      <p>Já tem conta? <a href="/entrar">Entrar</a></p>`,
  );
}

export function signInPage(options: {
  csrfToken: string;
  email?: string;
  error?: string;
  notice?: string;
  signUp: boolean;
}): Markup {
  return publicPage(
    'Entrar no painel',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <form method="post" action="/entrar">
        ${csrfField(options.csrfToken)}
        ${field('email', 'E-mail', { type: 'email', name: 'email', autocomplete: 'username', value: options.email })}
        ${field('senha', 'Senha', { type: 'password', name: 'password', autocomplete: 'current-password' })}
        <button type="submit">Entrar</button>
      </form>
      <p><a href="/esqueci-senha">Esqueci minha senha</a></p>
      ${options.signUp ? html`<p>Ainda não tem conta? <a href="/cadastro">Criar conta</a></p>` : null}`,
  );
}
