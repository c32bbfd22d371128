import htm from 'htm';

/**
 * A node of markup as Preact builds it. Preact's own type declarations are not loaded: they bring the browser's DOM
 * library into the workspace's one type-check, which would change Node's fetch types for every other package. The
 * dashboard only ever renders on the server, through the two functions typed here.
 */
export interface Markup {
  readonly type: unknown;
  readonly props: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { h } = require('preact') as {
  h: (type: unknown, props: Record<string, unknown> | null, ...children: unknown[]) => Markup;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render } = require('preact-render-to-string') as { render: (node: Markup) => string };

/**
 * Markup as tagged templates (htm), rendered on the server by Preact: every interpolated value is text or an attribute
 * value, escaped by the renderer; nothing is ever inserted as markup.
 */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => Markup;

/** A whole document. */
export function renderDocument(page: Markup): string {
  return `<!doctype html>${render(page)}`;
}
