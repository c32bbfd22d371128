import { formatDateTime } from '../../domain/format';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';

/** Empresa: the business's settings an owner or admin changes here (its time zone). */
export function businessPage(
  viewer: Viewer,
  options: { timeZone: string; choices: readonly string[]; now: Date; notice?: string; error?: string },
): Markup {
  return appPage(
    viewer,
    '/empresa',
    'Empresa',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
      <p>
        As datas de todas as páginas são mostradas no fuso horário da empresa. Agora são
        <strong data-testid="agora">${formatDateTime(options.now.toISOString(), options.timeZone)}</strong>
        em <code>${options.timeZone}</code>.
      </p>
      <form method="post" action="/empresa">
        ${csrfField(viewer.csrfToken)}
        <div class="field">
          <label for="fuso">Fuso horário</label>
          <select id="fuso" name="time_zone" required>
            ${options.choices.map(
              (zone) => html`<option value=${zone} selected=${zone === options.timeZone}>${zone}</option>`,
            )}
          </select>
        </div>
        <button type="submit">Salvar fuso horário</button>
      </form>`,
  );
}
