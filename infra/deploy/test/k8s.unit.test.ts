import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations } from '@gateway/api-gateway/src/http/openapi';
import { deployedServiceNames } from '@gateway/contracts';
import { refusedVariables, without } from '@gateway/testkit';
import { amqpUser, amqpVhost, grantedUsers } from '../src/config';
import { DEPLOYED_TOPOLOGY } from '../src/deployed-definitions';
import { compiledEntries, compiledEntry } from '../tools/compiled-entries';
import {
  definitionsStep,
  definitionsWait,
  k8sDir,
  k8sObjects,
  kubernetesValidators,
  kustomization,
  madeUpSecrets,
  madeUpSettings,
  messageServices,
  productionRequired,
  repoRoot,
  runtimeVariables,
  stackServices,
  type Env,
  type K8sObject,
} from './support/deployment';
import { commandFile, imageName, imagePackage, readDockerfile, targetOfImage } from './support/dockerfile';

interface EnvFromSource {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface KeyRef {
  name: string;
  key: string;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
  securityContext?: Record<string, unknown>;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  volumes?: Array<{ name: string; emptyDir?: Record<string, unknown> }>;
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const objects = k8sObjects();
const dockerfile = readDockerfile();
const ofKind = <T extends K8sObject>(kind: string) =>
  objects.filter(({ object }) => object.kind === kind).map(({ object }) => object as T);
/** The RabbitMQ cluster's own objects (rabbitmq.yaml, its Secret): checked by their own test, not as a service's. */
const ofBroker = (object: K8sObject) => object.metadata.labels?.['app.kubernetes.io/name'] === 'rabbitmq';
const ofServices = <T extends K8sObject>(kind: string) =>
  ofKind<T>(kind).filter((object) => !ofBroker(object));
const deployments = ofKind<Workload>('Deployment');
const jobs = ofKind<Workload>('Job');
const configMaps = ofServices<K8sObject & { data: Env }>('ConfigMap');
const secrets = ofServices<K8sObject & { stringData: Env }>('Secret');

function deployment(name: string): Workload {
  const found = deployments.find((d) => d.metadata.name === name);
  if (!found) throw new Error(`infra/k8s has no Deployment ${name}`);
  return found;
}

function mainContainer(workload: Workload): Container {
  const containers = workload.spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0]!;
}

/** Empty in the manifests on purpose, and no placeholder: names unprefixed. */
const intentionallyEmpty = ['AMQP_PREFIX'];

/**
 * The ConfigMaps' placeholders (config.yaml's REPLACE values): the deployment's own public URLs, its PSP, its Pix key
 * and city, the sender of the dashboard's mails. Every key of the example Secrets is one too.
 */
const configMapPlaceholders = [
  'CALLBACK_PUBLIC_URL',
  'DASHBOARD_PUBLIC_URL',
  'MAIL_FROM',
  'MERCHANT_CITY',
  'PIX_KEY',
  'PSP_BASE_URL',
  'PUBLIC_BASE_URL',
];

/** The keys of a ConfigMap or Secret. */
function keysOf(kind: 'ConfigMap' | 'Secret', name: string): Env {
  if (kind === 'ConfigMap') {
    const configMap = configMaps.find((c) => c.metadata.name === name);
    if (!configMap) throw new Error(`no ConfigMap ${name}`);
    return configMap.data;
  }
  const secret = secrets.find((s) => s.metadata.name === name);
  if (!secret) throw new Error(`no Secret ${name}`);
  return secret.stringData;
}

/** A value the operator must fill in: any key of the example Secrets, the ConfigMaps' REPLACE values. */
const isPlaceholder = (kind: 'ConfigMap' | 'Secret', key: string) =>
  kind === 'Secret' || configMapPlaceholders.includes(key);

/** Every placeholder of the manifests, with its source (`Secret/name`). */
const placeholders = [...configMaps, ...secrets].flatMap((object) => {
  const kind = object.kind as 'ConfigMap' | 'Secret';
  return Object.keys(keysOf(kind, object.metadata.name))
    .filter((key) => isPlaceholder(kind, key))
    .map((key) => ({ source: `${kind}/${object.metadata.name}`, key }));
});

/** What the operator fills the placeholders with, made up: valid values of every one. */
function filledIn(): Env {
  return { ...madeUpSecrets(), ...madeUpSettings() };
}

/**
 * A container's environment as the pod gets it: its ConfigMaps and Secrets, then its own `env`; each placeholder
 * as written, or as `filled` fills it in.
 */
function containerEnv(container: Container, filled: Env = {}): Env {
  const env: Env = {};
  const value = (kind: 'ConfigMap' | 'Secret', key: string, written: string) =>
    isPlaceholder(kind, key) && filled[key] !== undefined ? filled[key] : written;
  for (const source of container.envFrom ?? []) {
    const [kind, name] = source.configMapRef
      ? (['ConfigMap', source.configMapRef.name] as const)
      : (['Secret', source.secretRef!.name] as const);
    for (const [key, written] of Object.entries(keysOf(kind, name))) env[key] = value(kind, key, written);
  }
  for (const { name, value: literal, valueFrom } of container.env ?? []) {
    const ref = valueFrom?.configMapKeyRef ?? valueFrom?.secretKeyRef;
    if (ref) {
      const kind = valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret';
      const written = keysOf(kind, ref.name)[ref.key];
      if (written === undefined) throw new Error(`${container.name}: ${ref.name} has no key ${ref.key}`);
      env[name] = value(kind, ref.key, written);
    } else env[name] = literal ?? '';
  }
  return env;
}

/** The ConfigMaps and Secrets a container reads from, and which of their keys (undefined: all of them). */
function containerSources(container: Container): Array<{ name: string; key?: string; as?: string }> {
  return [
    ...(container.envFrom ?? []).map((source) => ({
      name: source.configMapRef?.name ?? source.secretRef!.name,
    })),
    ...(container.env ?? []).flatMap(({ name, valueFrom }) => {
      const ref = valueFrom?.configMapKeyRef ?? valueFrom?.secretKeyRef;
      return ref ? [{ name: ref.name, key: ref.key, as: name }] : [];
    }),
  ];
}

/**
 * What a container runs: the Dockerfile target its image is built from, and the file it runs in that image (from the
 * repository's root), by its own command or else its image's (`node <V8 heap options> dist/main.js` in
 * /app/services/payment: `services/payment/dist/main.js`).
 */
function runs(container: Container): { target?: string; file?: string } {
  const target = targetOfImage(container.image);
  const stage = target ? dockerfile.stage(target) : undefined;
  if (!stage) return { target };
  const words = container.command ?? (stage.cmd?.form === 'exec' ? stage.cmd.words : undefined);
  return { target, file: commandFile(stage, words) };
}

/** The process a container runs, by its file: the service, its migrations (the same config), or a deploy step. */
function processOf(
  container: Container,
  service: Pick<(typeof stackServices)[number], 'name' | 'variables' | 'load'>,
) {
  const { file } = runs(container);
  if (file === definitionsWait.entry) return definitionsWait;
  if (file === definitionsStep.entry) return definitionsStep;
  return service;
}

/** Every container of every Deployment and Job, init containers included, with its workload's name. */
const allContainers = [...deployments, ...jobs].flatMap((workload) =>
  [...(workload.spec.template.spec.initContainers ?? []), ...workload.spec.template.spec.containers].map(
    (container) => ({ workload: workload.metadata.name, container }),
  ),
);

function probePort(container: Container, probe: Probe | undefined): number | undefined {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

describe('infra/k8s', () => {
  test('every object is valid by the vendored Kubernetes 1.36 schemas, strict: an unknown field is an error', () => {
    const validators = kubernetesValidators();
    for (const { file, object } of objects) {
      const validate = validators.get(`${object.apiVersion} ${object.kind}`);
      expect({ file, kind: `${object.apiVersion} ${object.kind}`, vendored: Boolean(validate) }).toEqual({
        file,
        kind: `${object.apiVersion} ${object.kind}`,
        vendored: true,
      });
      validate!(object);
      expect({ file, name: object.metadata.name, errors: validate!.errors ?? [] }).toEqual({
        file,
        name: object.metadata.name,
        errors: [],
      });
    }
  });

  test('the kustomization applies every manifest but the example Secrets, in one namespace, with every image of ours', () => {
    const { resources, namespace, images } = kustomization();
    const files = [...new Set(objects.map(({ file }) => file))];
    expect([...resources].sort()).toEqual(files.filter((file) => file !== 'secrets.example.yaml'));
    for (const resource of resources) expect(existsSync(join(k8sDir, resource))).toBe(true);
    for (const { object } of objects)
      expect(object.metadata.namespace ?? object.metadata.name).toBe(namespace);
    const containerImages = [...new Set(allContainers.map(({ container }) => container.image))].sort();
    expect(images.map((image) => image.name).sort()).toEqual(containerImages);
    // Each pushed under its own name, all with one tag: the definitions Job and the services of one build.
    for (const { name, newName } of images) expect(newName?.endsWith(`/${name}`)).toBe(true);
    expect(new Set(images.map(({ newTag }) => newTag)).size).toBe(1);
  });

  test("every container's image is one of the Dockerfile's targets, and what it runs is a file that image holds", () => {
    for (const { workload, container } of allContainers) {
      const { target, file } = runs(container);
      expect({ workload, container: container.name, built: target !== undefined }).toEqual({
        workload,
        container: container.name,
        built: true,
      });
      const folder = imagePackage(dockerfile.stage(target!))!;
      // A compiled entry of the image's own package (the image holds no other package's files), built here.
      const compiled = (compiledEntries[folder] ?? []).map((name) => compiledEntry(folder, name));
      expect({ workload, container: container.name, file, compiled: compiled.includes(file!) }).toEqual({
        workload,
        container: container.name,
        file: expect.any(String),
        compiled: true,
      });
      expect(existsSync(join(repoRoot, file!))).toBe(true);
    }
  });

  test('the Deployments are exactly the services of the one list (contracts `deployedServiceNames`)', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...deployedServiceNames].sort());
  });

  test('every service has one Deployment running its entry point after its migrations and the RabbitMQ definitions', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(stackServices.map((s) => s.name).sort());
    const filled = filledIn();
    for (const service of stackServices) {
      const { spec } = deployment(service.name);
      const main = mainContainer(deployment(service.name));
      // Its own image, running the service's entry point (the image's command).
      expect(main.image).toBe(imageName(service.name));
      expect(runs(main)).toEqual({ target: service.name, file: service.entry });
      const migrate = `services/${service.name}/dist/migrate.js`;
      // The migrations load the service's own config: the same variables as the service.
      expect(spec.template.spec.initContainers![0]!.envFrom).toEqual(main.envFrom);
      // The dashboard owns no queue: its schema, and nothing of the broker.
      if (!messageServices.some(({ name }) => name === service.name)) {
        expect(spec.template.spec.initContainers?.map(runs)).toEqual([
          { target: service.name, file: migrate },
        ]);
        expect(containerEnv(main, filled).AMQP_URLS).toBeUndefined();
        continue;
      }
      // Init containers run one after the other, all before the service: its schema, from its own image, then the
      // broker's definitions, from the deploy steps' image.
      expect(spec.template.spec.initContainers?.map(runs)).toEqual([
        { target: service.name, file: migrate },
        { target: definitionsStep.name, file: definitionsWait.entry },
      ]);
      for (const file of [service.entry, migrate, definitionsWait.entry])
        expect(existsSync(join(repoRoot, file))).toBe(true);
      // The wait logs in as the service: the very AMQP_URLS the service gets, from the same Secret key.
      const wait = spec.template.spec.initContainers![1]!;
      expect(containerEnv(wait, filled).AMQP_URLS).toBe(containerEnv(main, filled).AMQP_URLS);
      expect(containerSources(wait).find((source) => source.as === 'AMQP_URLS')).toEqual({
        name: 'gateway-common-secrets',
        key: 'AMQP_URLS',
        as: 'AMQP_URLS',
      });
      expect(amqpVhost(definitionsWait.load(containerEnv(wait, filled)).AMQP_URL)).toBe(
        DEPLOYED_TOPOLOGY.vhost,
      );
    }
  });

  test('readiness, liveness and startup probes hit a health path on the port the process serves it on', () => {
    const secretValues = filledIn();
    for (const service of stackServices) {
      const container = mainContainer(deployment(service.name));
      const env = containerEnv(container, secretValues);
      const healthPort = service.healthPort(env);
      for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
        const probe = container[kind];
        expect({ service: service.name, kind, port: probePort(container, probe) }).toEqual({
          service: service.name,
          kind,
          port: healthPort,
        });
        expect(['/healthz', '/readyz']).toContain(probe!.httpGet!.path);
      }
      // Every port the container declares is one the process listens on, and the other way round.
      expect(container.ports!.map((p) => p.containerPort).sort()).toEqual(service.ports(env).sort());
    }
  });

  test('every variable a pod is given is one its process reads, and every ConfigMap and Secret key is read', () => {
    const read = new Map<string, Set<string>>();
    const workloads = [
      ...stackServices.map((service) => ({ process: service, workload: deployment(service.name) })),
      { process: definitionsStep, workload: jobs.find((j) => j.metadata.name === definitionsStep.name)! },
    ];
    for (const { process: workloadProcess, workload } of workloads)
      for (const container of [
        ...(workload.spec.template.spec.initContainers ?? []),
        mainContainer(workload),
      ]) {
        const process = processOf(container, workloadProcess);
        const unread = Object.keys(containerEnv(container)).filter(
          (name) => !process.variables.includes(name) && !runtimeVariables.includes(name),
        );
        expect({ process: process.name, container: container.name, unread }).toEqual({
          process: process.name,
          container: container.name,
          unread: [],
        });
        for (const { name, key, as } of containerSources(container)) {
          const keys = key === undefined ? process.variables : process.variables.includes(as!) ? [key] : [];
          read.set(name, new Set([...(read.get(name) ?? []), ...keys]));
        }
      }
    for (const object of [...configMaps, ...secrets]) {
      const keys = Object.keys(
        (object as { data?: Env }).data ?? (object as { stringData?: Env }).stringData ?? {},
      );
      const unread = keys.filter((key) => !read.get(object.metadata.name)?.has(key));
      expect({ [object.kind]: object.metadata.name, unread }).toEqual({
        [object.kind]: object.metadata.name,
        unread: [],
      });
    }
  });

  test('every Deployment gets every variable its service requires in production, and APP_ENV=production', () => {
    for (const service of stackServices) {
      const env = containerEnv(mainContainer(deployment(service.name)));
      // The broker's nodes (AMQP_URLS) stand for its one address.
      const missing = productionRequired(service).filter(
        (name) => !(name in env) && !(name === 'AMQP_URL' && 'AMQP_URLS' in env),
      );
      expect({ service: service.name, missing }).toEqual({ service: service.name, missing: [] });
      expect(env.APP_ENV).toBe('production');
    }
  });

  test('with its placeholders filled in, every container loads its production config by its own rules', () => {
    const filled = filledIn();
    for (const service of stackServices) {
      const { spec } = deployment(service.name);
      for (const container of [...spec.template.spec.initContainers!, ...spec.template.spec.containers]) {
        const env = containerEnv(container, filled);
        expect(() => processOf(container, service).load(env)).not.toThrow();
      }
    }
    const job = jobs.find((j) => j.metadata.name === definitionsStep.name)!;
    expect(() => definitionsStep.load(containerEnv(mainContainer(job), filled))).not.toThrow();
  });

  test('every service is told how to trace (encoding, sampler, ratio, resource attributes) by the common ConfigMap; the endpoint and the collector credentials wait, commented out, for the operator', () => {
    const tracing = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: 1,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=production',
    };
    const filled = filledIn();
    const endpoint = /^ {2}# OTEL_EXPORTER_OTLP_ENDPOINT: (\S+)$/m.exec(
      readFileSync(join(k8sDir, 'config.yaml'), 'utf8'),
    )?.[1];
    const headers = /^ {2}# OTEL_EXPORTER_OTLP_HEADERS: (\S+)$/m.exec(
      readFileSync(join(k8sDir, 'secrets.example.yaml'), 'utf8'),
    )?.[1];
    expect({ endpoint, headers }).toEqual({ endpoint: expect.any(String), headers: expect.any(String) });
    for (const service of stackServices) {
      const env = containerEnv(mainContainer(deployment(service.name)), filled);
      expect({ service: service.name, config: service.load(env) }).toEqual({
        service: service.name,
        config: expect.objectContaining(tracing),
      });
      // Uncommented as written, they are taken.
      const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint!, OTEL_EXPORTER_OTLP_HEADERS: headers! };
      expect(service.load(traced)).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: headers,
      });
    }
  });

  test('the example Secrets hold placeholders only; every placeholder is an empty value, none a made-up one', () => {
    for (const secret of secrets)
      for (const [key, value] of Object.entries(secret.stringData))
        expect({ secret: secret.metadata.name, key, value }).toEqual({
          secret: secret.metadata.name,
          key,
          value: '',
        });
    // The ConfigMaps' own are empty too, and every empty value of a ConfigMap is one (or empty on purpose).
    expect(
      placeholders
        .filter(({ source }) => source.startsWith('ConfigMap/'))
        .map(({ key }) => key)
        .sort(),
    ).toEqual(configMapPlaceholders);
    for (const configMap of configMaps)
      for (const [key, value] of Object.entries(configMap.data))
        expect({ configMap: configMap.metadata.name, key, empty: value === '' }).toEqual({
          configMap: configMap.metadata.name,
          key,
          empty: configMapPlaceholders.includes(key) || (intentionallyEmpty.includes(key) && value === ''),
        });
    // A non-empty stand-in (`REPLACE-with-...`, an example.com URL) could pass a service's rules: none is left.
    for (const object of [...configMaps, ...secrets, ...deployments, ...jobs])
      expect({ name: object.metadata.name, text: JSON.stringify(object) }).not.toEqual({
        name: object.metadata.name,
        text: expect.stringMatching(/REPLACE|example\.(com|org|net)/),
      });
  });

  test('as written, every process refuses to start on each placeholder it gets (exit 78, naming it)', () => {
    const containers = [
      ...stackServices.flatMap((service) => {
        const { spec } = deployment(service.name);
        return [...spec.template.spec.initContainers!, ...spec.template.spec.containers].map((container) => ({
          workload: service.name,
          container,
          process: processOf(container, service),
        }));
      }),
      ...jobs.map((job) => ({
        workload: job.metadata.name,
        container: mainContainer(job),
        process: definitionsStep,
      })),
    ];
    const refused = new Set<string>();
    for (const { workload, container, process } of containers) {
      const written = containerEnv(container);
      const got = placeholders.filter(({ key }) => key in written).map(({ key }) => key);
      // Every placeholder at once, as applied unchanged: each one named.
      expect({
        workload,
        container: container.name,
        refused: refusedVariables(() => process.load(written)),
      }).toEqual({
        workload,
        container: container.name,
        refused: expect.arrayContaining(got),
      });
      // Each one alone as written, every other filled in: still refused (none passes because another failed first).
      const filled = filledIn();
      for (const key of got) {
        const env = containerEnv(container, without(filled, key));
        expect({
          workload,
          container: container.name,
          key,
          refused: refusedVariables(() => process.load(env)),
        }).toEqual({
          workload,
          container: container.name,
          key,
          refused: expect.arrayContaining([key]),
        });
        refused.add(key);
      }
    }
    // And every placeholder reaches a process that refuses it.
    expect(placeholders.map(({ key }) => key).filter((key) => !refused.has(key))).toEqual([]);
  });

  test('every stateless service is scaled by CPU (HorizontalPodAutoscaler) and leaves its replica count to it', () => {
    const autoscalers = ofKind<K8sObject & { spec: { scaleTargetRef: { kind: string; name: string } } }>(
      'HorizontalPodAutoscaler',
    );
    // The chain scan runs on one replica at a time and each replica spends its own RPC budget: not scaled by load.
    const stateless = stackServices.map((s) => s.name).filter((name) => name !== 'solana-watcher');
    expect(autoscalers.map((a) => a.spec.scaleTargetRef.name).sort()).toEqual([...stateless].sort());
    for (const autoscaler of autoscalers) {
      const target = deployment(autoscaler.spec.scaleTargetRef.name);
      expect(autoscaler.spec.scaleTargetRef.kind).toBe('Deployment');
      expect(target.spec.replicas).toBeUndefined();
      expect(mainContainer(target).resources?.requests?.cpu).toBeDefined();
    }
    expect(deployment('solana-watcher').spec.replicas).toBeGreaterThanOrEqual(2);
  });

  test('every Deployment has a PodDisruptionBudget that selects its pods and lets a node drain', () => {
    const budgets = ofKind<K8sObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Env } } }>(
      'PodDisruptionBudget',
    );
    for (const workload of deployments) {
      const covering = budgets.filter((b) =>
        selects(b.spec.selector.matchLabels, workload.spec.template.metadata.labels),
      );
      expect({ deployment: workload.metadata.name, budgets: covering.length }).toEqual({
        deployment: workload.metadata.name,
        budgets: 1,
      });
      expect(covering[0]!.spec.maxUnavailable).toBe(1);
      expect(selects(workload.spec.selector!.matchLabels, workload.spec.template.metadata.labels)).toBe(true);
    }
  });

  test("every Deployment's process runs its image's own command: no command or args, which would drop its V8 heap settings", () => {
    const overrides = deployments.map((workload) => {
      const { command, args } = mainContainer(workload);
      return { deployment: workload.metadata.name, command, args };
    });
    expect(overrides).toEqual(
      deployments.map((workload) => ({
        deployment: workload.metadata.name,
        command: undefined,
        args: undefined,
      })),
    );
  });

  test('every container requests CPU and memory, caps memory, and runs unprivileged on a read-only filesystem', () => {
    for (const workload of [...deployments, ...jobs]) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      // Only /tmp takes writes: a volume of the pod's own, on every container.
      expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} });
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        // uid 1000 is the user `node` of the official node images, the user the image runs as.
        expect(dockerfile.stage(targetOfImage(container.image)!).user).toBe('node');
        expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(container.resources).toMatchObject({
          requests: { cpu: expect.any(String), memory: expect.any(String) },
          limits: { memory: expect.any(String) },
        });
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  test('the Services reach the ports the processes serve: the API, the PSP callbacks and the dashboard', () => {
    const services = ofServices<
      K8sObject & { spec: { selector: Env; ports: Array<{ targetPort: string }> } }
    >('Service');
    const secretValues = filledIn();
    const served = (name: string, port: number) => {
      const container = mainContainer(deployment(name));
      return container.ports!.find((p) => p.containerPort === port)!.name;
    };
    const gateway = containerEnv(mainContainer(deployment('api-gateway')), secretValues);
    const adapter = containerEnv(mainContainer(deployment('pix-adapter')), secretValues);
    const dashboard = containerEnv(mainContainer(deployment('dashboard')), secretValues);
    const expected = {
      'api-gateway': served('api-gateway', Number(gateway.PORT)),
      'pix-adapter-callbacks': served('pix-adapter', Number(adapter.CALLBACK_PORT)),
      dashboard: served('dashboard', Number(dashboard.DASHBOARD_PORT)),
    };
    // The dashboard reaches the gateway through the gateway's Service.
    expect(new URL(dashboard.GATEWAY_URL!).hostname).toBe('api-gateway');
    expect(
      Object.fromEntries(
        services.map((s) => [s.metadata.name, s.spec.ports.map((p) => p.targetPort).join()]),
      ),
    ).toEqual(expected);
    for (const service of services) {
      const selected = deployments.filter((d) =>
        selects(service.spec.selector, d.spec.template.metadata.labels),
      );
      expect(selected).toHaveLength(1);
    }
  });

  test('the RabbitMQ definitions Job applies the file in the image, to the vhost and user of AMQP_URLS', () => {
    const job = jobs.find((j) => j.metadata.name === definitionsStep.name)!;
    const container = mainContainer(job);
    expect(container.image).toBe(imageName(definitionsStep.name));
    expect(runs(container)).toEqual({ target: definitionsStep.name, file: definitionsStep.entry });
    // The user comes from the services' own Secret key, not from a second copy of it.
    expect(containerSources(container).find((source) => source.as === 'AMQP_URLS')).toEqual({
      name: 'gateway-common-secrets',
      key: 'AMQP_URLS',
      as: 'AMQP_URLS',
    });
    expect(container.env?.map(({ name }) => name)).not.toContain('RABBITMQ_APP_USERS');
    const filled = filledIn();
    const env = containerEnv(container, filled);
    const servicesUrls = containerEnv(mainContainer(deployment('payment')), filled).AMQP_URLS!;
    const servicesUrl = servicesUrls.split(',')[0]!;
    expect(grantedUsers(definitionsStep.load(env))).toEqual([amqpUser(servicesUrl)]);
    expect(amqpVhost(servicesUrl)).toBe(DEPLOYED_TOPOLOGY.vhost);
    // The queues are declared once the three nodes run: each quorum queue then has a member on each.
    expect(definitionsStep.load(env).RABBITMQ_CLUSTER_NODES).toBe(3);
    for (const service of messageServices) {
      const serviceEnv = containerEnv(mainContainer(deployment(service.name)), filled);
      expect(serviceEnv.AMQP_URLS).toBe(servicesUrls);
      expect(serviceEnv.AMQP_PREFIX ?? '').toBe(DEPLOYED_TOPOLOGY.prefix);
    }
  });

  test('RabbitMQ is a cluster of three nodes formed by peer discovery, one down at a time, the services given each', () => {
    type StatefulSet = Workload & {
      spec: { serviceName: string; podManagementPolicy?: string; volumeClaimTemplates?: unknown[] };
    };
    const [statefulSet, ...others] = ofKind<StatefulSet>('StatefulSet');
    expect(others).toEqual([]);
    expect(statefulSet!.spec.replicas).toBe(3);
    expect(statefulSet!.spec.podManagementPolicy).toBe('Parallel');
    expect(statefulSet!.spec.volumeClaimTemplates).toHaveLength(1);
    const headless = ofKind<K8sObject & { spec: { clusterIP?: string; publishNotReadyAddresses?: boolean } }>(
      'Service',
    ).find((service) => service.metadata.name === statefulSet!.spec.serviceName)!;
    expect(headless.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    // Peer discovery by the Kubernetes API, through that Service; the nodes named after their pods in it.
    const config = ofKind<K8sObject & { data: Env }>('ConfigMap').find(
      (c) => c.metadata.name === 'rabbitmq-config',
    )!;
    expect(config.data['enabled_plugins']).toContain('rabbitmq_peer_discovery_k8s');
    const conf = Object.fromEntries(
      config.data['rabbitmq.conf']!.split('\n')
        .filter((line) => /^[a-z]/.test(line))
        .map((line) => line.split(/\s*=\s*/) as [string, string]),
    );
    expect(conf).toMatchObject({
      'cluster_formation.peer_discovery_backend': 'rabbit_peer_discovery_k8s',
      'cluster_formation.k8s.service_name': headless.metadata.name,
      'cluster_formation.k8s.address_type': 'hostname',
    });
    const container = mainContainer(statefulSet!);
    const env = Object.fromEntries((container.env ?? []).map((v) => [v.name, v]));
    expect(env.RABBITMQ_NODENAME!.value).toBe(
      `rabbit@$(POD_NAME)${conf['cluster_formation.k8s.hostname_suffix']}`,
    );
    // Every key of its Secret is read, the cookie among them.
    const secret = ofKind<K8sObject & { stringData: Env }>('Secret').find(
      (s) => s.metadata.name === 'rabbitmq-secrets',
    )!;
    const read = containerSources(container)
      .filter((source) => source.name === secret.metadata.name)
      .map((source) => source.key);
    expect(read.sort()).toEqual(Object.keys(secret.stringData).sort());
    expect(Object.values(secret.stringData)).toEqual(Object.keys(secret.stringData).map(() => ''));
    // One node down at a time: each quorum queue keeps two of its three members.
    const budget = ofKind<K8sObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Env } } }>(
      'PodDisruptionBudget',
    ).find((b) => selects(b.spec.selector.matchLabels, statefulSet!.spec.template.metadata.labels))!;
    expect(budget.spec.maxUnavailable).toBe(1);
    // The services' AMQP_URLS, as the Secret's comment shows it, names each pod of the StatefulSet once.
    const example = /# REPLACE_ME: (amqp:\/\/\S+)$/m.exec(
      readFileSync(join(k8sDir, 'secrets.example.yaml'), 'utf8'),
    )![1]!;
    const hosts = example.split(',').map((url) => new URL(url).hostname);
    expect(hosts).toEqual(
      [0, 1, 2].map((n) => `${statefulSet!.metadata.name}-${n}.${headless.metadata.name}`),
    );
    expect(() => definitionsWait.load({ AMQP_URLS: example })).not.toThrow();
  });

  test('the ingress guidance on the api-gateway Service names every public path the gateway serves, no probe', () => {
    const text = readFileSync(join(k8sDir, 'api-gateway.yaml'), 'utf8');
    const serviceDocument = text.split(/^---$/m).find((document) => /^kind: Service$/m.test(document))!;
    const listed = (label: string) =>
      (new RegExp(`^#\\s+${label}:(.*)$`, 'm').exec(serviceDocument)?.[1] ?? '')
        .trim()
        .split(/\s+/)
        .filter(Boolean);
    const exposed = [...listed('expose'), ...listed('expose only if operators reach it from outside')];
    const never = listed('never expose');
    const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
    // The probes and metrics (the gateway's `Operations`) are for the cluster; every other route is someone's.
    for (const { path, tag } of operations) {
      const routedBy = exposed.filter((prefix) => under(path, prefix));
      expect({ path, routed: routedBy.length > 0 }).toEqual({ path, routed: tag !== 'Operations' });
      if (tag === 'Operations') expect(never).toContain(path);
    }
    for (const prefix of exposed)
      expect({ prefix, serves: operations.some(({ path }) => under(path, prefix)) }).toEqual({
        prefix,
        serves: true,
      });
    expect(exposed).toEqual(expect.arrayContaining(['/v1', '/c', '/docs', '/openapi.json', '/admin/v1']));
  });

  test("every pod's grace period outlasts its preStop pause plus its service's stop bound (SHUTDOWN_TIMEOUT_MS)", () => {
    const marginMs = 5000;
    const tooShort = stackServices.flatMap((service) => {
      const workload = deployment(service.name);
      const container = mainContainer(workload);
      const config = service.load(containerEnv(container, filledIn())) as { SHUTDOWN_TIMEOUT_MS: number };
      const [, pauseSeconds = '0'] = container.lifecycle?.preStop?.exec?.command ?? [];
      const neededMs = Number(pauseSeconds) * 1000 + config.SHUTDOWN_TIMEOUT_MS + marginMs;
      // Kubernetes' default grace period is 30 s.
      const graceMs = (workload.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
      return graceMs < neededMs ? [{ service: service.name, graceMs, neededMs }] : [];
    });
    expect(tooShort).toEqual([]);
  });
  test("each service's memory request and limit come from the bench runs the deployment guide names", () => {
    // The guide's Resources bullet names the stack bench's results it rests on and shows the table this test derives.
    const guide = readFileSync(join(repoRoot, 'docs/deploying.md'), 'utf8');
    const start = guide.indexOf('- Resources:');
    const bullet = guide.slice(start, guide.indexOf('\n- ', start + 1));
    const runs = [...bullet.matchAll(/`(bench\/results\/stack-[^`]+\.json)`/g)].map(
      ([, path]) =>
        JSON.parse(readFileSync(join(repoRoot, path!), 'utf8')) as {
          memoryMiB: { idle: Record<string, number>; peak: Record<string, number> };
        },
    );
    expect(runs.length).toBeGreaterThan(0);
    // The request is the largest peak of those runs plus 15 %, rounded up to 32 MiB; the limit twice the request.
    const sized = stackServices.map(({ name }) => {
      const peak = Math.max(...runs.map((run) => run.memoryMiB.peak[name]!));
      const idle = Math.max(...runs.map((run) => run.memoryMiB.idle[name]!));
      const request = Math.ceil((peak * 1.15) / 32) * 32;
      return { name, idle, peak, request: `${request}Mi`, limit: `${request * 2}Mi` };
    });
    const deployed = stackServices.map(({ name }) => {
      const { requests, limits } = mainContainer(deployment(name)).resources ?? {};
      return { name, request: requests?.memory, limit: limits?.memory };
    });
    expect(deployed).toEqual(sized.map(({ name, request, limit }) => ({ name, request, limit })));
    const tableRows = sized.map(
      ({ name, idle, peak, request, limit }) => `| ${name} | ${idle} | ${peak} | ${request} | ${limit} |`,
    );
    // Exactly these rows, in any order: no row missing, stale or twice.
    const shown = bullet
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^\| [a-z-]+ \| \d/.test(line));
    expect([...shown].sort()).toEqual([...tableRows].sort());
  });
});
