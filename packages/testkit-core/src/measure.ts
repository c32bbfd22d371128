import { performance } from 'node:perf_hooks';

const WARM_UP = 200;

/**
 * Bench helper: runs `operation` WARM_UP times unmeasured, then `iterations` times one after another, and prints
 * ops/s and µs/op.
 */
export async function measure(name: string, iterations: number, operation: () => unknown): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await operation();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await operation();
  const elapsedMs = performance.now() - started;
  process.stdout.write(
    `${name}: ${Math.round((iterations * 1000) / elapsedMs)} ops/s, ${((elapsedMs * 1000) / iterations).toFixed(1)} µs/op (${iterations} ops)\n`,
  );
}
