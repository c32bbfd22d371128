/** The variables a config load refuses (empty when it loads), for tests of what a process accepts at start. */
export function refusedVariables(load: () => unknown): string[] {
  try {
    load();
    return [];
  } catch (err) {
    // @gateway/config's ConfigError, recognised by shape (the testkit does not depend on the config package).
    if (err instanceof Error && err.name === 'ConfigError')
      return [...(err as Error & { variables: string[] }).variables].sort();
    throw err;
  }
}

/** `env` without `name`. */
export function without(env: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => key !== name));
}

/**
 * The entries of a loaded config whose value points at this machine or a sandbox (a loopback URL, a `sandbox`/`dev`
 * value): a production config must have none, but for the `except` keys (the interfaces it binds...).
 */
export function developmentValues(config: object, except: string[] = []): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).filter(
      ([key, value]) =>
        !except.includes(key) &&
        typeof value === 'string' &&
        /127\.0\.0\.1|localhost|sandbox|\bdev\b|dev-/i.test(value),
    ),
  );
}
