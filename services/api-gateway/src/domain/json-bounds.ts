/** The first way a parsed JSON value breaks the input bounds: nested too deep, or a NUL character in a string. */
export type JsonBoundsViolation = { kind: 'too_deep' } | { kind: 'nul_character'; field: string };

/**
 * Walks a parsed JSON value (or a parsed query string) with an explicit stack, never recursion, so any depth is
 * safe to inspect. `{}` and `[]` are one level deep. Keys count as strings. `field` names the top-level key that
 * holds the NUL (empty when the value itself is a string).
 */
export function findBoundsViolation(value: unknown, maxDepth: number): JsonBoundsViolation | undefined {
  const pending: Array<{ value: unknown; depth: number; field: string }> = [{ value, depth: 0, field: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (next.value.includes('\u0000')) return { kind: 'nul_character', field: next.field };
      continue;
    }
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > maxDepth) return { kind: 'too_deep' };
    for (const [key, child] of Object.entries(next.value)) {
      const field = next.field || key;
      if (key.includes('\u0000')) return { kind: 'nul_character', field };
      pending.push({ value: child, depth, field });
    }
  }
  return undefined;
}
