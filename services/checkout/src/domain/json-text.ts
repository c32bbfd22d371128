/** `metadata` is the caller's own data carried as serialized JSON text, so it must parse. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
