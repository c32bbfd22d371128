import { formatDateTime } from '../../domain/format';
import { roleLabels, roles, type Role } from '../../domain/roles';
import { alert, appPage, csrfField, type Viewer } from './layout';
import { html, type Markup } from './html';
import { actionsHeader, dataTable } from './table';

export interface TeamMemberView {
  userId: string;
  email: string;
  role: Role;
  emailVerified: boolean;
  createdAt: Date;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  expiresAt: Date;
}

/** The roles `viewer` may grant: an owner every one, an admin every one but owner. */
const grantable = (viewer: Viewer): Role[] =>
  roles.filter((role) => role !== 'owner' || viewer.role === 'owner');

function roleSelect(id: string, label: string, options: Role[], selected?: Role): Markup {
  return html`<label for=${id} class="visually-hidden">${label}</label>
    <select id=${id} name="role">
      ${options.map((role) => html`<option value=${role} selected=${role === selected}>${roleLabels[role]}</option>`)}
    </select>`;
}

function memberActions(viewer: Viewer, member: TeamMemberView): Markup | null {
  if (member.role === 'owner' && viewer.role !== 'owner') return null;
  const id = encodeURIComponent(member.userId);
  return html`<div class="actions">
    <form method="post" action=${`/equipe/membros/${id}/papel`} class="inline">
      ${csrfField(viewer.csrfToken)}
      ${roleSelect(`papel-${member.userId}`, `Novo papel de ${member.email}`, grantable(viewer), member.role)}
      <button type="submit" aria-label=${`Alterar papel de ${member.email}`}>Alterar papel</button>
    </form>
    <form method="post" action=${`/equipe/membros/${id}/remover`} class="inline">
      ${csrfField(viewer.csrfToken)}
      <button type="submit" class="danger" aria-label=${`Remover ${member.email}`}>Remover</button>
    </form>
  </div>`;
}

export function teamPage(
  viewer: Viewer,
  options: {
    team: TeamMemberView[];
    invitations: InvitationView[];
    timeZone: string;
    canManage: boolean;
    notice?: string;
    error?: string;
  },
): Markup {
  const manage = options.canManage;
  return appPage(
    viewer,
    '/equipe',
    'Equipe',
    html`${alert('error', options.error)} ${alert('notice', options.notice)}
    ${dataTable({
      caption: 'Pessoas com acesso a esta empresa',
      empty: 'Ninguém.',
      rows: options.team,
      columns: [
        { header: 'E-mail', cell: (member) => member.email },
        { header: 'Papel', cell: (member) => roleLabels[member.role] },
        {
          header: 'E-mail verificado',
          cell: (member) => (member.emailVerified ? 'Verificado' : 'Não verificado'),
        },
        {
          header: 'Desde',
          cell: (member) => formatDateTime(member.createdAt.toISOString(), options.timeZone),
        },
        ...(manage
          ? [
              {
                header: actionsHeader,
                cell: (member: (typeof options.team)[number]) => memberActions(viewer, member),
              },
            ]
          : []),
      ],
    })}
    ${
      manage
        ? html`<section aria-labelledby="convidar">
            <h2 id="convidar">Convidar pessoa</h2>
            <form method="post" action="/equipe/convites" class="filters">
              ${csrfField(viewer.csrfToken)}
              <div class="field">
                <label for="convite-email">E-mail</label>
                <input id="convite-email" type="email" name="email" autocomplete="off" required />
              </div>
              <div class="field">
                <label for="convite-papel">Papel</label>
                <select id="convite-papel" name="role">
                  ${grantable(viewer).map(
                    (role) =>
                      html`<option value=${role} selected=${role === 'developer'}>
                        ${roleLabels[role]}
                      </option>`,
                  )}
                </select>
              </div>
              <div class="field"><button type="submit">Convidar</button></div>
            </form>
          </section>`
        : null
    }
    ${
      options.invitations.length > 0
        ? dataTable({
            caption: 'Convites pendentes',
            empty: '',
            rows: options.invitations,
            columns: [
              { header: 'E-mail', cell: (invitation) => invitation.email },
              { header: 'Papel', cell: (invitation) => roleLabels[invitation.role] },
              {
                header: 'Válido até',
                cell: (invitation) => formatDateTime(invitation.expiresAt.toISOString(), options.timeZone),
              },
              ...(manage
                ? [
                    {
                      header: actionsHeader,
                      cell: (invitation: (typeof options.invitations)[number]) =>
                        html`<form
                          method="post"
                          action=${`/equipe/convites/${encodeURIComponent(invitation.id)}/revogar`}
                        >
                          ${csrfField(viewer.csrfToken)}
                          <button
                            type="submit"
                            class="danger"
                            aria-label=${`Revogar o convite de ${invitation.email}`}
                          >
                            Revogar
                          </button>
                        </form>`,
                    },
                  ]
                : []),
            ],
          })
        : null
    }`,
  );
}
