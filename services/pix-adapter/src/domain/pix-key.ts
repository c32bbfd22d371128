/**
 * A Pix key (chave) as logs and error messages may show it: a CPF, CNPJ, phone or e-mail identifies a person, so only
 * its first three and last two characters stay (enough to tell which configured key it is); a short one is all masked.
 */
export function maskPixKey(chave: string): string {
  if (chave.length < 8) return '*'.repeat(chave.length);
  return `${chave.slice(0, 3)}${'*'.repeat(chave.length - 5)}${chave.slice(-2)}`;
}

/** `text` with every occurrence of the key, as given or percent-encoded (as it is in a URL), masked. */
export function maskPixKeyIn(text: string, chave: string): string {
  if (chave === '') return text;
  const masked = maskPixKey(chave);
  return [...new Set([chave, encodeURIComponent(chave)])].reduce(
    (current, form) => current.split(form).join(masked),
    text,
  );
}
