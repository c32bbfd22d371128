import type { MerchantKey } from '../../application/shared/merchant-keys';
import type { ApiKeyScope } from '@gateway/contracts';
import { formatDateTime } from '../../domain/format';
import { scopeLabels } from '../../domain/roles';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { actionsHeader, dataTable } from './table';

/** A key's status in the pages' words (the operator console shows them too). */
export const keyStatusLabels: Record<MerchantKey['status'], string> = {
  active: 'Ativa',
  rolled: 'Trocada (válida até expirar)',
  expired: 'Expirada',
  revoked: 'Revogada',
};

/** Roll and revoke, each its own form; the buttons' names say which key. */
function keyActions(csrfToken: string, keyPrefix: string): Markup {
  const action = (verb: string, label: string, danger: boolean) =>
    html`<form method="post" action=${`/chaves/${encodeURIComponent(keyPrefix)}/${verb}`}>
      ${csrfField(csrfToken)}
      <button
        type="submit"
        class=${danger ? 'danger' : undefined}
        aria-label=${`${label} a chave ${keyPrefix}`}
      >
        ${label}
      </button>
    </form>`;
  return html`<div class="actions">
    ${action('trocar', 'Trocar', false)} ${action('revogar', 'Revogar', true)}
  </div>`;
}

/** A new key, shown this once. */
export function newKeyPanel(apiKey: string): Markup {
  return html`<section class="new-key" aria-labelledby="nova-chave">
    <h2 id="nova-chave">Sua nova chave de API</h2>
    <p>Copie e guarde esta chave agora: ela não será mostrada de novo.</p>
    <p><code class="secret" data-testid="nova-chave">${apiKey}</code></p>
  </section>`;
}

export function keysPage(
  viewer: Viewer,
  options: {
    keys: MerchantKey[];
    timeZone: string;
    canWrite: boolean;
    /** The scopes the person may give a new key. */
    grantable: ApiKeyScope[];
    newKey?: string;
    notice?: string;
    error?: string;
  },
): Markup {
  return appPage(
    viewer,
    '/chaves',
    'Chaves de API',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
    ${options.newKey ? newKeyPanel(options.newKey) : null}
    ${
      options.canWrite
        ? html`<form method="post" action="/chaves">
            ${csrfField(viewer.csrfToken)}
            <fieldset>
              <legend>Permissões da nova chave</legend>
              <p>Nenhuma marcada: a chave terá todas as permissões do seu papel.</p>
              ${options.grantable.map((scope) => {
                const id = `escopo-${scope.replace(':', '-')}`;
                return html`<div>
                  <input type="checkbox" name="scope" value=${scope} id=${id} />
                  <label for=${id}>${scopeLabels[scope]}</label>
                </div>`;
              })}
            </fieldset>
            <button type="submit">Criar chave</button>
          </form>`
        : null
    }
    ${dataTable({
      caption: 'Chaves da empresa (só o prefixo é mostrado)',
      empty: 'Nenhuma chave.',
      rows: options.keys,
      columns: [
        {
          header: 'Prefixo',
          cell: (key) => html`<code>${key.keyPrefix}</code>${key.dashboards ? ' (usada pelo painel)' : ''}`,
        },
        {
          header: 'Permissões',
          cell: (key) =>
            key.scopes === null
              ? 'Todas'
              : key.scopes.map((scope) => scopeLabels[scope as ApiKeyScope] ?? scope).join(', '),
        },
        { header: 'Situação', cell: (key) => keyStatusLabels[key.status] },
        { header: 'Criada em', cell: (key) => formatDateTime(key.createdAt, options.timeZone) },
        {
          header: actionsHeader,
          cell: (key) =>
            options.canWrite && !key.dashboards && key.status === 'active'
              ? keyActions(viewer.csrfToken, key.keyPrefix)
              : null,
        },
      ],
    })}`,
  );
}
