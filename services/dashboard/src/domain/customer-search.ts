/** What the Clientes search box asks for: nothing, one customer by its id, or the customers with an e-mail address. */
export type CustomerSearch = { kind: 'none' } | { kind: 'id'; id: string } | { kind: 'email'; email: string };

/**
 * Reads the search box: blank is no search, text with an `@` an e-mail address (the public API compares it as it
 * stores customers' addresses), anything else a customer id.
 */
export function customerSearch(text: string): CustomerSearch {
  const search = text.trim();
  if (search.length === 0) return { kind: 'none' };
  return search.includes('@') ? { kind: 'email', email: search } : { kind: 'id', id: search };
}
