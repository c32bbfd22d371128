import { auditActionLabels } from '../../domain/audit';
import { formatDateTime } from '../../domain/format';
import type { AuditEntryEntity } from '../../persistence';
import { appPage, type Viewer } from './layout';
import { html, type Markup } from './html';
import { dataTable } from './table';

/** An entry's details as a line: `from: developer, to: admin`. */
const detailText = (details: Record<string, string>): string =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');

/**
 * The audit log as a table with the link to older entries: a business's (Auditoria) and the operators' (the console's
 * Auditoria), each with its caption and its page's address.
 */
export function auditLog(options: {
  caption: string;
  entries: AuditEntryEntity[];
  timeZone: string;
  path: string;
  olderCursor?: string;
}): Markup {
  return html`${dataTable({
    caption: options.caption,
    empty: 'Nenhum registro ainda.',
    rows: options.entries,
    columns: [
      {
        header: 'Quando',
        cell: (entry) => formatDateTime(entry.createdAt.toISOString(), options.timeZone),
      },
      { header: 'Quem', cell: (entry) => entry.actorEmail ?? '—' },
      { header: 'Ação', cell: (entry) => auditActionLabels[entry.action] ?? entry.action },
      {
        header: 'Sobre',
        cell: (entry) =>
          html`${entry.target ?? ''}
          ${Object.keys(entry.details).length ? `(${detailText(entry.details)})` : ''}`,
      },
      {
        header: 'De onde',
        cell: (entry) => html`${entry.clientAddress ?? '—'}<br /><small>${entry.userAgent ?? ''}</small>`,
      },
    ],
  })}
  ${
    options.olderCursor
      ? html`<p>
          <a href=${`${options.path}?antes=${encodeURIComponent(options.olderCursor)}`}
            >Registros mais antigos</a
          >
        </p>`
      : null
  }`;
}

export function auditPage(
  viewer: Viewer,
  options: { entries: AuditEntryEntity[]; timeZone: string; olderCursor?: string },
): Markup {
  return appPage(
    viewer,
    '/auditoria',
    'Auditoria',
    auditLog({
      caption: 'Quem fez o quê nesta empresa, do mais recente ao mais antigo',
      entries: options.entries,
      timeZone: options.timeZone,
      path: '/auditoria',
      olderCursor: options.olderCursor,
    }),
  );
}
