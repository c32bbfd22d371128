import { auditActionLabels } from '../../domain/audit';
import { formatDateTime } from '../../domain/format';
import type { AuditEntryEntity } from '../../persistence';
import { appPage, type Viewer } from './layout';
import { html, type Markup } from './html';

/** An entry's details as a line: `from: developer, to: admin`. */
const detailText = (details: Record<string, string>): string =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');

export function auditPage(
  viewer: Viewer,
  options: { entries: AuditEntryEntity[]; timeZone: string; olderCursor?: string },
): Markup {
  return appPage(
    viewer,
    '/auditoria',
    'Auditoria',
    html`<table>
        <caption>
          Quem fez o quê nesta empresa, do mais recente ao mais antigo
        </caption>
        <thead>
          <tr>
            <th scope="col">Quando</th>
            <th scope="col">Quem</th>
            <th scope="col">Ação</th>
            <th scope="col">Sobre</th>
            <th scope="col">De onde</th>
          </tr>
        </thead>
        <tbody>
          ${options.entries.map(
            (entry) =>
              html`<tr>
                <td>${formatDateTime(entry.createdAt.toISOString(), options.timeZone)}</td>
                <td>${entry.actorEmail ?? '—'}</td>
                <td>${auditActionLabels[entry.action] ?? entry.action}</td>
                <td>
                  ${entry.target ?? ''}
                  ${Object.keys(entry.details).length ? `(${detailText(entry.details)})` : ''}
                </td>
                <td>${entry.clientAddress ?? '—'}<br /><small>${entry.userAgent ?? ''}</small></td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${options.entries.length === 0 ? html`<p>Nenhum registro ainda.</p>` : null}
      ${
        options.olderCursor
          ? html`<p>
              <a href=${`/auditoria?antes=${encodeURIComponent(options.olderCursor)}`}
                >Registros mais antigos</a
              >
            </p>`
          : null
      }`,
  );
}
