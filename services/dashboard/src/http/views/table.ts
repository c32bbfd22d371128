import { html, type Markup } from './html';

/** One column of a table: its header and what each row shows in it (`amount` aligns money to the right). */
export interface Column<Row> {
  /** Text, or markup (a header read only by screen readers: `actionsHeader`). */
  readonly header: string | Markup;
  readonly cell: (row: Row) => unknown;
  readonly amount?: boolean;
}

/**
 * Every list of the dashboard: a captioned table with one header cell per column (scoped, for screen readers), or
 * the sentence that says the list is empty.
 */
export function dataTable<Row>(options: {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  empty: string;
}): Markup {
  if (options.rows.length === 0) return html`<p>${options.empty}</p>`;
  return html`<table>
    <caption>
      ${options.caption}
    </caption>
    <thead>
      <tr>
        ${options.columns.map((column) => html`<th scope="col">${column.header}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${options.rows.map(
        (row) =>
          html`<tr>
            ${options.columns.map((column) =>
              column.amount
                ? html`<td class="amount">${column.cell(row)}</td>`
                : html`<td>${column.cell(row)}</td>`,
            )}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The header of a column of buttons: read by screen readers, not shown. */
export const actionsHeader: Markup = html`<span class="visually-hidden">Ações</span>`;
