import { appPage, publicPage, type SectionPath, type Viewer } from './layout';
import { html, type Markup } from './html';

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
