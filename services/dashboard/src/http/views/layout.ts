import { roleAllows, type Permission, type Role } from '../../domain/roles';
import { html, type Markup } from './html';

/** The sections of the signed-in app, in the navigation's order. */
export const sections = [
  { path: '/pagamentos', label: 'Pagamentos' },
  { path: '/assinaturas', label: 'Assinaturas' },
  { path: '/saldo', label: 'Saldo' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/chaves', label: 'Chaves de API' },
  { path: '/clientes', label: 'Clientes' },
  { path: '/checkouts', label: 'Checkouts' },
  { path: '/equipe', label: 'Equipe' },
  { path: '/auditoria', label: 'Auditoria', permission: 'audit:read' },
  { path: '/empresa', label: 'Empresa', permission: 'business:write' },
] as const satisfies ReadonlyArray<{ path: string; label: string; permission?: Permission }>;

export type SectionPath = (typeof sections)[number]['path'];

/** Who is signed in, as every page of the app shows it. */
export interface Viewer {
  email: string;
  businessName: string;
  environment: 'sandbox' | 'production';
  roleLabel: string;
  role: Role;
  /** Whether the person's e-mail is verified: until it is, every page says so and offers to mail the link again. */
  emailVerified: boolean;
  csrfToken: string;
}

function document(title: string, body: Markup): Markup {
  return html`<html lang="pt-BR">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · Painel</title>
      <link rel="stylesheet" href="/static/app.css" />
    </head>
    ${body}
  </html>`;
}

/** A page of the signed-in app: the business, the navigation (the current section marked), the content. */
export function appPage(viewer: Viewer, current: SectionPath | null, title: string, content: Markup): Markup {
  return document(
    title,
    html`<body>
      <a class="skip" href="#conteudo">Pular para o conteúdo</a>
      <header class="top">
        <span class="business">${viewer.businessName}</span>
        ${viewer.environment === 'sandbox' ? html`<span class="badge">Sandbox</span>` : null}
        <span class="who">${viewer.email} (${viewer.roleLabel})</span>
        <a href="/seguranca">Segurança</a>
        <form method="post" action="/sair" class="inline">
          <input type="hidden" name="_csrf" value=${viewer.csrfToken} />
          <button type="submit" class="link">Sair</button>
        </form>
      </header>
      <nav aria-label="Seções">
        <ul>
          ${sections
            .filter((section) => !('permission' in section) || roleAllows(viewer.role, section.permission))
            .map(
              (section) =>
                html`<li>
                  <a href=${section.path} aria-current=${section.path === current ? 'page' : undefined}
                    >${section.label}</a
                  >
                </li>`,
            )}
        </ul>
      </nav>
      <main id="conteudo">
        ${viewer.emailVerified ? null : unverifiedNotice(viewer.csrfToken)}
        <h1>${title}</h1>
        ${content}
      </main>
    </body>`,
  );
}

/** Until the person's e-mail is verified: a notice, and the link mailed again on request. */
function unverifiedNotice(csrfToken: string): Markup {
  return html`<div class="alert notice" role="status">
    <p>Seu e-mail ainda não foi verificado: abra o link que enviamos para confirmá-lo.</p>
    <form method="post" action="/verificar-email/reenviar" class="inline">
      ${csrfField(csrfToken)}
      <button type="submit" class="link">Reenviar e-mail de verificação</button>
    </form>
  </div>`;
}

/** A page outside the app (sign-in, sign-up, errors before signing in). */
export function publicPage(title: string, content: Markup): Markup {
  return document(
    title,
    html`<body class="public">
      <main id="conteudo">
        <h1>${title}</h1>
        ${content}
      </main>
    </body>`,
  );
}

/** A message the page leads with: an error (announced at once) or a notice. */
/** A list's "Situação" filter: every status by its label, the one the list is narrowed to selected. */
export function statusFilter(labels: Record<string, string>, selected: string | undefined): Markup {
  return html`<div class="field">
    <label for="status">Situação</label>
    <select id="status" name="status">
      <option value="">Todas</option>
      ${Object.entries(labels).map(
        ([value, label]) => html`<option value=${value} selected=${selected === value}>${label}</option>`,
      )}
    </select>
  </div>`;
}

export function alert(kind: 'error' | 'notice', text: string | null | undefined): Markup | null {
  if (!text) return null;
  return kind === 'error'
    ? html`<p class="alert error" role="alert">${text}</p>`
    : html`<p class="alert notice" role="status">${text}</p>`;
}

export function csrfField(token: string): Markup {
  return html`<input type="hidden" name="_csrf" value=${token} />`;
}
