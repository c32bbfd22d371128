import { appPage, publicPage, type Viewer } from './layout';
import { html, type Markup } from './html';

/** An error page, inside the app when someone is signed in. */
export function errorPage(viewer: Viewer | undefined, title: string, text: string): Markup {
  const content = html`<p>${text}</p>
    <p><a href="/">Voltar ao início</a></p>`;
  return viewer ? appPage(viewer, null, title, content) : publicPage(title, content);
}
