import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process; services register their own metrics on it and expose it on /metrics. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export function counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Counter<string>;
  return new Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

export function gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Gauge<string>;
  return new Gauge({ name, help, labelNames, registers: [metricsRegistry] });
}

export function histogram(
  name: string,
  help: string,
  labelNames: string[] = [],
  buckets?: number[],
): Histogram<string> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Histogram<string>;
  return new Histogram({
    name,
    help,
    labelNames,
    registers: [metricsRegistry],
    ...(buckets ? { buckets } : {}),
  });
}
