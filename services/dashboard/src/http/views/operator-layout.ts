import { html, type Markup } from './html';
import { csrfField } from './layout';

/** The console's sections, in the navigation's order. */
export const operatorSections = [
  { path: '/operador/empresas', label: 'Empresas' },
  { path: '/operador/mensagens', label: 'Mensagens estacionadas' },
  { path: '/operador/conciliacao', label: 'Conciliação' },
  { path: '/operador/operadores', label: 'Operadores' },
  { path: '/operador/auditoria', label: 'Auditoria' },
] as const;

export type OperatorSectionPath = (typeof operatorSections)[number]['path'] | '/operador/seguranca';

/** The signed-in operator, as every page of the console shows them. */
export interface OperatorViewer {
  email: string;
  csrfToken: string;
}

/** A page of the operator console: who is signed in, the console's navigation (the current section marked), the content. */
export function operatorPage(
  viewer: OperatorViewer,
  current: OperatorSectionPath | null,
  title: string,
  content: Markup,
): Markup {
  return html`<html lang="pt-BR">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · Console de operação</title>
      <link rel="stylesheet" href="/static/app.css" />
    </head>
    <body>
      <a class="skip" href="#conteudo">Pular para o conteúdo</a>
      <header class="top">
        <span class="business">Console de operação</span>
        <span class="who">${viewer.email} (Operador)</span>
        <a href="/operador/seguranca" aria-current=${current === '/operador/seguranca' ? 'page' : undefined}
          >Segurança</a
        >
        <form method="post" action="/sair" class="inline">
          ${csrfField(viewer.csrfToken)}
          <button type="submit" class="link">Sair</button>
        </form>
      </header>
      <nav aria-label="Seções do console">
        <ul>
          ${operatorSections.map(
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
        <h1>${title}</h1>
        ${content}
      </main>
    </body>
  </html>`;
}
