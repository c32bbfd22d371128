import fc from 'fast-check';
import { escapeHtml } from '../src/http/checkout-page';

describe('escapeHtml', () => {
  it('replaces the five HTML-significant characters with entities', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;',
    );
  });

  it('leaves no raw markup character in any text, and decoding gives the text back', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        const decoded = escaped
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&');
        expect(decoded).toBe(text);
      }),
    );
  });
});
