/**
 * What the observability checks read: the files of infra/observability as parsed documents, every PromQL expression
 * they hold (parsed by the Prometheus project's own grammar, @prometheus-io/lezer-promql) with the metric names it
 * selects, and the Prometheus text format a service serves on /metrics.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';
import { repoRoot } from './deployment';

export const observabilityDir = join(repoRoot, 'infra/observability');

/** The containers of the compose profile `observability`. */
export const observabilityServices = ['otel-collector', 'jaeger', 'prometheus', 'grafana'];

const readYaml = <T>(file: string): T => parse(readFileSync(join(observabilityDir, file), 'utf8')) as T;

export interface ScrapeConfig {
  job_name: string;
  metrics_path?: string;
  static_configs: Array<{ targets: string[] }>;
  [key: string]: unknown;
}

export interface PrometheusConfig {
  global?: Record<string, string>;
  rule_files: string[];
  scrape_configs: ScrapeConfig[];
  [key: string]: unknown;
}

export const prometheusConfig = (): PrometheusConfig => readYaml('prometheus.yml');

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  keep_firing_for?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Rule[];
  [key: string]: unknown;
}

export const ruleFile = (): { groups: RuleGroup[] } => readYaml('alerts.yml');

export interface DashboardTarget {
  refId: string;
  expr?: string;
  datasource?: { type: string; uid: string };
  [key: string]: unknown;
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: DashboardTarget[];
  panels?: DashboardPanel[];
  [key: string]: unknown;
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: DashboardPanel[];
  [key: string]: unknown;
}

export const dashboard = (): Dashboard =>
  JSON.parse(readFileSync(join(observabilityDir, 'grafana/dashboards/gateway.json'), 'utf8')) as Dashboard;

/** Every panel of the dashboard, those inside collapsed rows included. */
export const allPanels = (board: Dashboard): DashboardPanel[] =>
  board.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);

export const grafanaDatasources = (): {
  datasources: Array<{ name: string; uid: string; type: string; url: string }>;
} => readYaml('grafana/provisioning/datasources/datasources.yaml');

export const grafanaDashboardProviders = (): {
  providers: Array<{ name: string; type: string; options: { path: string } }>;
} => readYaml('grafana/provisioning/dashboards/dashboards.yaml');

export interface CollectorConfig {
  receivers: Record<string, { protocols?: Record<string, { endpoint?: string }> }>;
  processors?: Record<string, unknown>;
  exporters: Record<string, { endpoint?: string } | null>;
  extensions?: Record<string, unknown>;
  connectors?: Record<string, unknown>;
  service: {
    extensions?: string[];
    pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }>;
  };
}

export const collectorConfig = (): CollectorConfig => readYaml('otel-collector.yaml');

/** An expression with where it is, for messages. */
export interface Expression {
  at: string;
  expr: string;
}

export function ruleExpressions(): Expression[] {
  return ruleFile().groups.flatMap((group) =>
    group.rules.map((rule) => ({ at: `${group.name}/${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
}

export function dashboardExpressions(): Expression[] {
  return allPanels(dashboard()).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      at: `panel ${panel.id} "${panel.title}" ${target.refId}`,
      expr: target.expr ?? '',
    })),
  );
}

/** The parse errors of a PromQL expression, each with the text around it; none for a valid one. */
export function promqlErrors(expr: string): string[] {
  const errors: string[] = [];
  if (expr.trim() === '') return ['empty expression'];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.type.isError) errors.push(`at ${cursor.from}: "${expr.slice(cursor.from, cursor.from + 30)}"`);
  } while (cursor.next());
  return errors;
}

/** The metric names an expression selects (`name{...}`, `name[5m]`), in order of appearance. */
export function selectedMetrics(expr: string): string[] {
  const names: string[] = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector')
      names.push(expr.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return names;
}

/** Every aggregation of an expression (`max by (service) (...)`): the labels it keeps (`by`) and what it selects. */
export function aggregations(expr: string): Array<{ by: string[]; metrics: string[] }> {
  const found: Array<{ by: string[]; metrics: string[] }> = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.name !== 'AggregateExpr') continue;
    const modifier = cursor.node.getChild('AggregateModifier');
    const by = modifier?.getChild('By')
      ? modifier
          .getChildren('GroupingLabels')
          .flatMap((labels) =>
            labels.getChildren('LabelName').map((label) => expr.slice(label.from, label.to)),
          )
      : [];
    found.push({ by, metrics: selectedMetrics(expr.slice(cursor.from, cursor.to)) });
  } while (cursor.next());
  return found;
}

/** Series Prometheus makes itself for every scrape target, which no service serves. */
export const PROMETHEUS_SERIES = ['up'];

/**
 * The metric names the alerts and the dashboard select that a service must serve: all of them but those a recording
 * rule defines and those Prometheus makes itself.
 */
export function referencedServiceMetrics(): string[] {
  const recorded = new Set(ruleFile().groups.flatMap((group) => group.rules.map((rule) => rule.record)));
  return [
    ...new Set(
      [...ruleExpressions(), ...dashboardExpressions()].flatMap(({ expr }) => selectedMetrics(expr)),
    ),
  ]
    .filter((name) => !recorded.has(name) && !PROMETHEUS_SERIES.includes(name))
    .sort();
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Families by name, with their declared type. */
  types: Map<string, string>;
  samples: Sample[];
}

/** Reads the Prometheus text format (what prom-client serves): `# TYPE` lines and samples. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[name!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** The series names an exposition serves: each family's name, and a histogram's `_bucket`, `_sum` and `_count`. */
export function servedNames(exposition: Exposition): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of exposition.types) {
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}
