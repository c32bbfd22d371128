/**
 * `make`'s value, made at the first call and kept. For what is costly to make and not always used: an `Intl`
 * formatter reads ICU's data (about 6.5 MiB for a time zone), which then stays resident, so one made as a module loads
 * costs every process that loads it, whether it formats or not (ADR 0051).
 */
export function madeAtFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
