import { formatDateTime } from '../../domain/format';
import { groupedSecret } from '../../domain/second-factor';
import { alert, appPage, csrfField, publicPage, type Viewer } from './layout';
import { html, type Markup } from './html';

/** The field a code is typed in, wherever one is asked (sign-in, payouts, the payout account). */
export function codeField(options: { id: string; label: string; hint?: string; recovery?: boolean }): Markup {
  const hintId = `${options.id}-dica`;
  return html`<div class="field">
    <label for=${options.id}>${options.label}</label>
    <input
      id=${options.id}
      type="text"
      name="code"
      inputmode=${options.recovery ? undefined : 'numeric'}
      autocomplete="one-time-code"
      maxlength=${options.recovery ? 24 : 7}
      required
      aria-describedby=${options.hint ? hintId : undefined}
    />
    ${options.hint ? html`<p class="hint" id=${hintId}>${options.hint}</p>` : null}
  </div>`;
}

/** The second factor as a form that needs it shows it: a code field, or why the action is not offered yet. */
export type SecondFactorState = 'code' | 'enrol_first' | 'none';

/** What a form that moves money shows about the second factor. */
export function stepUpField(state: SecondFactorState): Markup | null {
  return state === 'code'
    ? codeField({
        id: 'codigo',
        label: 'Código do autenticador',
        hint: 'O código de 6 dígitos que o aplicativo autenticador mostra agora.',
      })
    : null;
}

/** Where an owner without a second factor is sent before moving money. */
export function enrolFirst(): Markup {
  return html`<p class="alert notice" role="status">
    Para isto, ative antes a verificação em duas etapas em <a href="/seguranca">Segurança</a>.
  </p>`;
}

/** What the Segurança page shows: the second factor's state, the recovery codes once, a message. */
export interface SecurityOptions {
  timeZone: string;
  state:
    | { kind: 'off' }
    | { kind: 'enrolling'; secret: string; qrDataUri: string }
    | { kind: 'on'; since: Date; recoveryCodesLeft: number };
  recoveryCodes?: string[];
  notice?: string;
  error?: string;
}

export function securityPage(viewer: Viewer, options: SecurityOptions): Markup {
  return appPage(viewer, null, 'Segurança', securityContent(viewer.csrfToken, options, '/seguranca'));
}

/** The Segurança page's content, its forms posted under `basePath` (the business app's, or the console's). */
export function securityContent(csrfToken: string, options: SecurityOptions, basePath: string): Markup {
  const { state } = options;
  const body =
    state.kind === 'off'
      ? html`<p>
            A verificação em duas etapas pede, além da senha, um código de um aplicativo autenticador (Google
            Authenticator, Microsoft Authenticator, 1Password, FreeOTP…). Ela é exigida do proprietário antes
            de saques e de mudanças na conta de saque.
          </p>
          <form method="post" action=${`${basePath}/autenticador`}>
            ${csrfField(csrfToken)}
            <button type="submit">Ativar verificação em duas etapas</button>
          </form>`
      : state.kind === 'enrolling'
        ? html`<ol>
            <li>
              <p>Leia este QR code com o aplicativo autenticador:</p>
              <img
                class="qr"
                src=${state.qrDataUri}
                width="240"
                height="240"
                alt="QR code para cadastrar o painel no aplicativo autenticador"
              />
              <p>
                Ou digite a chave no aplicativo:
                <code class="secret" data-testid="segredo-totp">${groupedSecret(state.secret)}</code>
              </p>
            </li>
            <li>
              <form method="post" action=${`${basePath}/autenticador/confirmar`}>
                ${csrfField(csrfToken)}
                ${codeField({ id: 'codigo', label: 'Código do aplicativo', hint: 'O código de 6 dígitos.' })}
                <div class="field">
                  <label for="senha-atual">Sua senha</label>
                  <input
                    id="senha-atual"
                    type="password"
                    name="password"
                    autocomplete="current-password"
                    required
                  />
                </div>
                <button type="submit">Confirmar</button>
              </form>
            </li>
          </ol>`
        : html`<p data-testid="verificacao-ativa">
              Verificação em duas etapas ativa desde
              ${formatDateTime(state.since.toISOString(), options.timeZone)}.
            </p>
            <p>Códigos de recuperação ainda não usados: ${state.recoveryCodesLeft}.</p>`;
  return html`${alert('error', options.error)} ${alert('notice', options.notice)}
    ${
      options.recoveryCodes
        ? html`<section class="new-key" aria-labelledby="codigos">
            <h2 id="codigos">Códigos de recuperação</h2>
            <p>
              Guarde estes códigos agora: eles não serão mostrados de novo. Cada um entra uma vez no lugar do
              código do aplicativo, se você perdê-lo.
            </p>
            <ul class="codes" data-testid="codigos-recuperacao">
              ${options.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}
            </ul>
          </section>`
        : null
    }
    <h2>Verificação em duas etapas</h2>
    ${body}`;
}

/** The second step of a sign-in: the authenticator's code, or a recovery code. */
export function signInCodePage(options: { csrfToken: string; error?: string }): Markup {
  return publicPage(
    'Verificação em duas etapas',
    html`${alert('error', options.error)}
      <form method="post" action="/entrar/codigo">
        ${csrfField(options.csrfToken)}
        ${codeField({
          id: 'codigo',
          label: 'Código de verificação',
          hint: 'O código de 6 dígitos do aplicativo autenticador, ou um código de recuperação.',
          recovery: true,
        })}
        <button type="submit">Verificar</button>
      </form>
      <p><a href="/entrar">Voltar</a></p>`,
  );
}
