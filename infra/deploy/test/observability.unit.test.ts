import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { metricsRegistry } from '@gateway/observability';
import {
  composeEnvironment,
  composeFile,
  readEnvFile,
  repoRoot,
  sandboxEnvFile,
  servesMetricsOnItsHttpPort,
  stackServices,
} from './support/deployment';
import {
  aggregations,
  allPanels,
  collectorConfig,
  dashboard,
  dashboardExpressions,
  grafanaDashboardProviders,
  grafanaDatasources,
  observabilityDir,
  observabilityServices,
  prometheusConfig,
  promqlErrors,
  referencedServiceMetrics,
  ruleExpressions,
  ruleFile,
  selectedMetrics,
} from './support/observability';

const compose = composeFile();
const sandbox = readEnvFile(sandboxEnvFile);

/** A Prometheus duration (`30s`, `1h30m`, `5m`), as its config and rule files take them. */
const DURATION = /^(?=\d)(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Where a container path of a compose service comes from on the host (its bind mounts), if it is mounted. */
function hostPathOf(service: string, containerPath: string): string | undefined {
  for (const volume of compose.services[service]?.volumes ?? []) {
    const [source, target] = volume.split(':');
    if (!source!.startsWith('./')) continue;
    if (containerPath === target) return join(repoRoot, source!);
    if (containerPath.startsWith(`${target}/`))
      return join(repoRoot, source!, posix.relative(target!, containerPath));
  }
  return undefined;
}

/** `host:port` of a URL or an endpoint without scheme. */
const hostPort = (endpoint: string): string => (endpoint.includes('://') ? new URL(endpoint).host : endpoint);

/** The ports a compose service publishes on the host, as `host-ip:host-port:container-port`. */
const published = (service: string): string[] => (compose.services[service]?.ports ?? []).map(String);

describe('infra/observability: Prometheus scrape configuration', () => {
  test('scrapes every service of docker-compose.yml, by service name, on the port it serves /metrics on, and nothing else', () => {
    const config = prometheusConfig();
    const scraped = config.scrape_configs.map((job) => ({
      job: job.job_name,
      path: job.metrics_path ?? '/metrics',
      targets: job.static_configs.flatMap((group) => group.targets),
    }));
    const expected = stackServices.map((process) => {
      const env = composeEnvironment(compose.services[process.name]!, sandbox);
      // The gateway and the dashboard serve /metrics on their HTTP port; every other service on its metrics listener.
      const port = servesMetricsOnItsHttpPort(process.name)
        ? process.healthPort(env)
        : (process.load(env) as { METRICS_PORT: number }).METRICS_PORT;
      return { job: process.name, path: '/metrics', targets: [`${process.name}:${port}`] };
    });
    expect(scraped.sort((a, b) => a.job.localeCompare(b.job))).toEqual(
      expected.sort((a, b) => a.job.localeCompare(b.job)),
    );
    // A worker listens for scrapers on every interface of its container, not on loopback only.
    for (const { name } of stackServices.filter((service) => !servesMetricsOnItsHttpPort(service.name)))
      expect({ name, host: composeEnvironment(compose.services[name]!, sandbox).METRICS_HOST }).toEqual({
        name,
        host: '0.0.0.0',
      });
  });

  test('its intervals are valid durations, and its rule files are the alert rules mounted into the container', () => {
    const config = prometheusConfig();
    for (const [key, value] of Object.entries(config.global ?? {}))
      expect({ key, value }).toEqual({
        key,
        value: expect.stringMatching(DURATION),
      });
    expect(config.rule_files.length).toBeGreaterThan(0);
    for (const file of config.rule_files)
      expect({ file, host: hostPathOf('prometheus', file) }).toEqual({
        file,
        host: join(observabilityDir, 'alerts.yml'),
      });
    expect(hostPathOf('prometheus', '/etc/prometheus/prometheus.yml')).toBe(
      join(observabilityDir, 'prometheus.yml'),
    );
    expect(compose.services.prometheus?.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
  });
});

describe('infra/observability: alert rules (the checks promtool check rules makes)', () => {
  const { groups } = ruleFile();

  test('the file is groups of rules with unique names, each rule exactly one of alert or record, nothing unknown', () => {
    expect(Object.keys(ruleFile())).toEqual(['groups']);
    expect(groups.length).toBeGreaterThan(0);
    const names = groups.map((group) => group.name);
    expect(new Set(names).size).toBe(names.length);
    for (const group of groups) {
      expect(Object.keys(group).every((key) => ['name', 'interval', 'limit', 'rules'].includes(key))).toBe(
        true,
      );
      if (group.interval !== undefined) expect(group.interval).toMatch(DURATION);
      expect(group.rules.length).toBeGreaterThan(0);
      for (const rule of group.rules) {
        const at = `${group.name}/${rule.alert ?? rule.record}`;
        expect({ at, kinds: [rule.alert, rule.record].filter((kind) => kind !== undefined).length }).toEqual({
          at,
          kinds: 1,
        });
        const allowed = rule.record
          ? ['record', 'expr', 'labels']
          : ['alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'];
        expect({ at, unknown: Object.keys(rule).filter((key) => !allowed.includes(key)) }).toEqual({
          at,
          unknown: [],
        });
        if (rule.record !== undefined) expect(rule.record).toMatch(METRIC_NAME);
        for (const key of ['for', 'keep_firing_for'] as const)
          if (rule[key] !== undefined)
            expect({ at, [key]: rule[key] }).toEqual({ at, [key]: expect.stringMatching(DURATION) });
        for (const map of [rule.labels, rule.annotations])
          for (const [name, value] of Object.entries(map ?? {})) {
            expect({ at, name }).toEqual({ at, name: expect.stringMatching(LABEL_NAME) });
            expect({ at, name, type: typeof value }).toEqual({ at, name, type: 'string' });
          }
      }
    }
  });

  test('every expression parses with the Prometheus PromQL grammar, without an error', () => {
    for (const { at, expr } of ruleExpressions())
      expect({ at, errors: promqlErrors(expr) }).toEqual({ at, errors: [] });
  });

  test('the check fails on what promtool refuses: a broken expression is reported', () => {
    expect(promqlErrors('sum(rate(webhook_delivery_attempts_total[5m])')).not.toEqual([]);
    expect(promqlErrors('rate(webhook_delivery_attempts_total[5 minutes])')).not.toEqual([]);
    expect(promqlErrors('')).not.toEqual([]);
    expect(
      selectedMetrics('sum by (queue) (rate(broker_messages_failed_total{kind="unknown"}[5m])) / up'),
    ).toEqual(['broker_messages_failed_total', 'up']);
  });

  test('every alert is named once, waits a while before firing, and says how bad it is, what happened and what to do', () => {
    const alerts = groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
    expect(new Set(alerts.map((rule) => rule.alert)).size).toBe(alerts.length);
    for (const rule of alerts) {
      expect({ alert: rule.alert, for: rule.for }).toEqual({
        alert: rule.alert,
        for: expect.stringMatching(DURATION),
      });
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({
        alert: rule.alert,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      expect({ alert: rule.alert, annotations: Object.keys(rule.annotations ?? {}).sort() }).toEqual({
        alert: rule.alert,
        annotations: ['description', 'runbook', 'summary'],
      });
    }
  });

  test('the alerts the platform team asked for are there: service down, parked messages, outbox age, webhook failures, webhook event logs behind or failing, rail errors, stuck payments, unreadable transactions, payout outcome conflicts, MEDs without a dispute', () => {
    const alerts = groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
    const recorded = new Map(
      groups
        .flatMap((group) => group.rules)
        .filter((rule) => rule.record)
        .map((rule) => [rule.record!, rule.expr]),
    );
    // What an alert selects, through the recording rules it uses.
    const selects = (expr: string): string[] =>
      selectedMetrics(expr).flatMap((name) => (recorded.has(name) ? selects(recorded.get(name)!) : [name]));
    const alertOn = (metric: string) =>
      alerts.filter((rule) => selects(rule.expr).includes(metric)).map((rule) => rule.alert);
    expect(alertOn('up')).toEqual(['ServiceDown']);
    expect(alertOn('broker_parked_messages')).toEqual(['MessagesParked']);
    expect(alertOn('outbox_oldest_unpublished_age_seconds')).toEqual(['OutboxOldestUnsentTooOld']);
    expect(alertOn('webhook_delivery_attempts_total')).toEqual(['WebhookFailureRatioHigh']);
    expect(alertOn('webhook_event_log_lag_seconds')).toEqual(['WebhookEventLogBehind']);
    expect(alertOn('webhook_event_log_read_failures_total')).toEqual(['WebhookEventLogReadsFailing']);
    expect(alertOn('pix_psp_request_duration_seconds_count')).toEqual(['PspErrorRatioHigh']);
    expect(alertOn('solana_watcher_rpc_request_duration_seconds_count')).toEqual(['SolanaRpcErrorRatioHigh']);
    expect(alertOn('payment_stuck_payment_oldest_seconds')).toEqual(['PaymentsStuckOpen']);
    expect(alertOn('solana_watcher_transactions_unread')).toEqual(['SolanaTransactionsUnread']);
    expect(alertOn('ledger_payout_outcome_conflicts_total')).toEqual(['PayoutOutcomeConflict']);
    expect(alertOn('payment_disputes_total')).toEqual(['MedWithoutDispute']);
    expect(alerts.find((rule) => rule.alert === 'MessagesParked')?.expr).toMatch(/> 0$/);
  });
});

describe('infra/observability: series of one service each', () => {
  /** Each service reports these about what it owns (its outbox, the queues it consumes), with its `service` label. */
  const perService = [
    'outbox_unpublished_messages',
    'outbox_oldest_unpublished_age_seconds',
    'broker_parked_messages',
  ];

  test('every alert and panel over them keeps the service apart (`by (service, ...)`), so one service cannot hide another', () => {
    const grouped = [...ruleExpressions(), ...dashboardExpressions()].flatMap(({ at, expr }) =>
      aggregations(expr)
        .filter(({ metrics }) => metrics.some((metric) => perService.includes(metric)))
        .map(({ by }) => ({ at, keepsService: by.includes('service') })),
    );
    expect(grouped.length).toBeGreaterThanOrEqual(perService.length);
    expect(grouped.filter(({ keepsService }) => !keepsService)).toEqual([]);
  });

  test('the check sees an aggregation that merges services', () => {
    expect(aggregations('max by (queue) (broker_parked_messages) > 0')).toEqual([
      { by: ['queue'], metrics: ['broker_parked_messages'] },
    ]);
    expect(aggregations('sum(rate(x[5m])) / sum by (service) (y)')).toEqual([
      { by: [], metrics: ['x'] },
      { by: ['service'], metrics: ['y'] },
    ]);
  });
});

describe('infra/observability: Grafana', () => {
  const board = dashboard();
  const panels = allPanels(board);
  const { datasources } = grafanaDatasources();

  test('the dashboard has what Grafana needs: a uid, a title, a schema version, unique panel ids, panels in the 24-column grid', () => {
    expect(board.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(board.title).toBeTruthy();
    expect(Number.isInteger(board.schemaVersion) && board.schemaVersion >= 36).toBe(true);
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { id, gridPos } of panels)
      expect({
        id,
        fits: gridPos.x >= 0 && gridPos.w > 0 && gridPos.x + gridPos.w <= 24 && gridPos.h > 0,
      }).toEqual({
        id,
        fits: true,
      });
  });

  test('every panel queries a provisioned data source, and every query has a refId and an expression that parses', () => {
    const byUid = new Map(datasources.map((source) => [source.uid, source]));
    expect(byUid.size).toBe(datasources.length);
    for (const panel of panels.filter((candidate) => candidate.type !== 'row')) {
      const at = `panel ${panel.id} "${panel.title}"`;
      expect({ at, targets: (panel.targets ?? []).length > 0 }).toEqual({ at, targets: true });
      const refIds = panel.targets!.map((target) => target.refId);
      expect({ at, unique: new Set(refIds).size === refIds.length && refIds.every(Boolean) }).toEqual({
        at,
        unique: true,
      });
      for (const ref of [panel.datasource, ...panel.targets!.map((target) => target.datasource)]) {
        expect({ at, type: ref?.type }).toEqual({ at, type: byUid.get(ref?.uid ?? '')?.type });
      }
    }
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(0);
    for (const { at, expr } of expressions)
      expect({ at, errors: promqlErrors(expr) }).toEqual({ at, errors: [] });
  });

  test('the data sources point at the bundled Prometheus and Jaeger by service name, on the ports they serve', () => {
    const urlOf = (type: string) => datasources.find((source) => source.type === type)?.url;
    // Prometheus's and Jaeger's query UI ports, as published by the compose file.
    expect(hostPort(urlOf('prometheus')!)).toBe('prometheus:9090');
    expect(published('prometheus')).toContain('127.0.0.1:9090:9090');
    expect(hostPort(urlOf('jaeger')!)).toBe('jaeger:16686');
    expect(published('jaeger')).toContain('127.0.0.1:16686:16686');
  });

  test('the provisioning is mounted where Grafana reads it, and the dashboard provider finds the dashboard', () => {
    expect(hostPathOf('grafana', '/etc/grafana/provisioning/datasources')).toBe(
      join(observabilityDir, 'grafana/provisioning/datasources'),
    );
    const [provider, ...others] = grafanaDashboardProviders().providers;
    expect(others).toEqual([]);
    expect(provider?.type).toBe('file');
    const folder = hostPathOf('grafana', provider!.options.path);
    expect(folder).toBeDefined();
    expect(readdirSync(folder!)).toContain('gateway.json');
    expect(
      composeEnvironment(compose.services.grafana!, sandbox).GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH,
    ).toBe(posix.join(provider!.options.path, 'gateway.json'));
  });
});

describe('infra/observability: OpenTelemetry Collector', () => {
  const config = collectorConfig();

  test('its pipelines use only receivers, processors and exporters it defines, and every one it defines is used', () => {
    const defined = {
      receivers: Object.keys(config.receivers),
      processors: Object.keys(config.processors ?? {}),
      exporters: Object.keys(config.exporters),
    };
    const pipelines = Object.entries(config.service.pipelines);
    expect(pipelines.map(([name]) => name)).toContain('traces');
    for (const [name, pipeline] of pipelines) {
      expect(
        Object.keys(pipeline).every((key) => ['receivers', 'processors', 'exporters'].includes(key)),
      ).toBe(true);
      expect(pipeline.receivers.length).toBeGreaterThan(0);
      expect(pipeline.exporters.length).toBeGreaterThan(0);
      for (const kind of ['receivers', 'processors', 'exporters'] as const)
        for (const id of pipeline[kind] ?? [])
          expect({ pipeline: name, kind, id, defined: defined[kind].includes(id) }).toEqual({
            pipeline: name,
            kind,
            id,
            defined: true,
          });
    }
    for (const kind of ['receivers', 'processors', 'exporters'] as const)
      for (const id of defined[kind])
        expect({
          kind,
          id,
          used: pipelines.some(([, pipeline]) => (pipeline[kind] ?? []).includes(id)),
        }).toEqual({
          kind,
          id,
          used: true,
        });
    for (const id of config.service.extensions ?? [])
      expect(Object.keys(config.extensions ?? {})).toContain(id);
  });

  test('it takes OTLP over HTTP on 4318 and gRPC on 4317, published on the loopback, and sends spans to the Jaeger of the compose file', () => {
    const otlp = config.receivers.otlp?.protocols;
    expect(otlp?.http?.endpoint).toBe('0.0.0.0:4318');
    expect(otlp?.grpc?.endpoint).toBe('0.0.0.0:4317');
    expect(published('otel-collector').sort()).toEqual(['127.0.0.1:4317:4317', '127.0.0.1:4318:4318']);
    const exporter = Object.entries(config.exporters).find(([id]) => id.split('/')[0] === 'otlp');
    expect(exporter).toBeDefined();
    // Jaeger takes OTLP gRPC on 4317.
    expect(hostPort(exporter![1]!.endpoint!)).toBe('jaeger:4317');
    expect(composeEnvironment(compose.services.jaeger!, sandbox).COLLECTOR_OTLP_ENABLED).toBe('true');
    expect(hostPathOf('otel-collector', '/etc/otelcol-contrib/config.yaml')).toBe(
      join(observabilityDir, 'otel-collector.yaml'),
    );
    expect(compose.services['otel-collector']?.command).toContain(
      '--config=/etc/otelcol-contrib/config.yaml',
    );
  });

  test('the services are told the collector by OTEL_EXPORTER_OTLP_ENDPOINT, passed through from the env file, commented out in the sandbox file', () => {
    for (const { name } of stackServices)
      expect({ name, value: compose.services[name]?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT }).toEqual({
        name,
        value: null,
      });
    const collector = /^# OTEL_EXPORTER_OTLP_ENDPOINT=(.+)$/m.exec(readFileSync(sandboxEnvFile, 'utf8'))?.[1];
    const httpPort = config.receivers.otlp?.protocols?.http?.endpoint?.split(':').at(-1);
    expect(collector).toBe(`http://otel-collector:${httpPort}`);
  });

  test('the rest of tracing (encoding, sampler, ratio, resource attributes, the collector credentials) is passed through from the env file to every service, with no default here', () => {
    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token',
    };
    for (const service of stackServices) {
      const environment = compose.services[service.name]?.environment ?? {};
      expect({
        service: service.name,
        passed: Object.keys(tracing).map((name) => environment[name]),
      }).toEqual({
        service: service.name,
        passed: Object.keys(tracing).map(() => null),
      });
      const config = service.load(
        composeEnvironment(compose.services[service.name]!, { ...sandbox, ...tracing }),
      );
      expect(config).toMatchObject({ ...tracing, OTEL_TRACES_SAMPLER_ARG: 0.25 });
    }
  });
});

describe('infra/observability: the compose profile', () => {
  test('its containers are in the `observability` profile, with pinned images, and every file they mount exists', () => {
    for (const name of observabilityServices) {
      const service = compose.services[name]!;
      expect({ name, profiles: service.profiles }).toEqual({ name, profiles: ['observability'] });
      // A version tag, never latest or none: the stack is the same on every machine.
      expect({ name, image: service.image }).toEqual({
        name,
        image: expect.stringMatching(/:v?\d+\.\d+\.\d+$/),
      });
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./'))
          expect({ name, source, exists: existsSync(join(repoRoot, source)) }).toEqual({
            name,
            source,
            exists: true,
          });
      }
    }
  });

  test('its UIs are published on the loopback only, never on a port the stack uses', () => {
    const ports = observabilityServices.flatMap(published);
    expect(ports.every((port) => port.startsWith('127.0.0.1:'))).toBe(true);
    const apiPorts = published('api-gateway').map((port) => port.split(':').at(-2));
    expect(ports.some((port) => apiPorts.includes(port.split(':')[1]))).toBe(false);
  });
});

describe('infra/observability: every metric the alerts and the dashboard select is one the services define', () => {
  test('each is registered by the service modules (the e2e test checks them on a live stack)', async () => {
    // Every service's modules, loaded as their processes load them: their metrics register as they load.
    await Promise.all(
      [
        '@gateway/api-gateway/src/main',
        '@gateway/payment/src/main',
        '@gateway/pix-adapter/src/main',
        '@gateway/solana-watcher/src/main',
        '@gateway/checkout/src/main',
        '@gateway/customer/src/main',
        '@gateway/webhook-dispatcher/src/main',
        '@gateway/ledger/src/main',
      ].map((module) => import(module)),
    );
    const registered = new Set(
      (await metricsRegistry.getMetricsAsJSON()).flatMap((metric) =>
        String(metric.type) === 'histogram'
          ? ['_bucket', '_sum', '_count'].map((suffix) => `${metric.name}${suffix}`)
          : [metric.name],
      ),
    );
    const referenced = referencedServiceMetrics();
    expect(referenced).toEqual(expect.arrayContaining(['payment_events_total', 'broker_parked_messages']));
    expect(referenced.filter((name) => !registered.has(name))).toEqual([]);
  }, 60_000);
});
