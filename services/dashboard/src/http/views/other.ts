import { roleLabels, type Role } from '../../domain/roles';
import { formatDateTime } from '../../domain/format';
import { appPage, publicPage, type SectionPath, type Viewer } from './layout';
import { html, type Markup } from './html';

export function teamPage(
  viewer: Viewer,
  options: { team: Array<{ email: string; role: Role; createdAt: Date }>; timeZone: string },
): Markup {
  return appPage(
    viewer,
    '/equipe',
    'Equipe',
    html`<table>
        <caption>
          Pessoas com acesso a esta empresa
        </caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Papel</th>
            <th scope="col">Desde</th>
          </tr>
        </thead>
        <tbody>
          ${options.team.map(
            (member) =>
              html`<tr>
                <td>${member.email}</td>
                <td>${roleLabels[member.role]}</td>
                <td>${formatDateTime(member.createdAt.toISOString(), options.timeZone)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      <p>Convites por e-mail ainda não estão disponíveis no painel.</p>`,
  );
}

/** A section not built yet: it says so, and what to use meanwhile. */
export function comingSoonPage(
  viewer: Viewer,
  section: SectionPath,
  title: string,
  meanwhile: string,
): Markup {
  return appPage(
    viewer,
    section,
    title,
    html`<p>Esta seção do painel ainda não está disponível.</p>
      <p>${meanwhile}</p>`,
  );
}

/** An error page, inside the app when someone is signed in. */
export function errorPage(viewer: Viewer | undefined, title: string, text: string): Markup {
  const content = html`<p>${text}</p>
    <p><a href="/">Voltar ao início</a></p>`;
  return viewer ? appPage(viewer, null, title, content) : publicPage(title, content);
}
