import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYED_TOPOLOGY } from '../src/write-rabbitmq-definitions';
import {
  definitionsStep,
  k8sDir,
  k8sObjects,
  kubernetesValidators,
  kustomization,
  madeUpSecrets,
  productionRequired,
  repoRoot,
  runtimeVariables,
  stackServices,
  type Env,
  type K8sObject,
} from './support/deployment';

interface EnvFromSource {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  envFrom?: EnvFromSource[];
  env?: Array<{ name: string; value?: string }>;
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
  securityContext?: Record<string, unknown>;
}
interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
  securityContext?: Record<string, unknown>;
}
interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const objects = k8sObjects();
const ofKind = <T extends K8sObject>(kind: string) =>
  objects.filter(({ object }) => object.kind === kind).map(({ object }) => object as T);
const deployments = ofKind<Workload>('Deployment');
const jobs = ofKind<Workload>('Job');
const configMaps = ofKind<K8sObject & { data: Env }>('ConfigMap');
const secrets = ofKind<K8sObject & { stringData: Env }>('Secret');

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

/** A container's environment as the pod gets it: its ConfigMaps and Secrets, then its own `env`. */
function containerEnv(container: Container, secretValues: Env = {}): Env {
  const env: Env = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const configMap = configMaps.find((c) => c.metadata.name === source.configMapRef!.name);
      if (!configMap) throw new Error(`no ConfigMap ${source.configMapRef.name}`);
      Object.assign(env, configMap.data);
    }
    if (source.secretRef) {
      const secret = secrets.find((s) => s.metadata.name === source.secretRef!.name);
      if (!secret) throw new Error(`no Secret ${source.secretRef.name}`);
      for (const [name, value] of Object.entries(secret.stringData)) env[name] = secretValues[name] ?? value;
    }
  }
  for (const { name, value } of container.env ?? []) env[name] = value ?? '';
  return env;
}

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

  test('the kustomization applies every manifest but the example Secrets, in one namespace, with the one image', () => {
    const { resources, namespace, images } = kustomization();
    const files = [...new Set(objects.map(({ file }) => file))];
    expect([...resources].sort()).toEqual(files.filter((file) => file !== 'secrets.example.yaml'));
    for (const resource of resources) expect(existsSync(join(k8sDir, resource))).toBe(true);
    for (const { object } of objects)
      expect(object.metadata.namespace ?? object.metadata.name).toBe(namespace);
    const containerImages = [...deployments, ...jobs].flatMap((w) =>
      [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].map(
        (c) => c.image,
      ),
    );
    expect([...new Set(containerImages)]).toEqual(images.map((image) => image.name));
  });

  test('every service has one Deployment running its entry point after its migrations (init container)', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(stackServices.map((s) => s.name).sort());
    for (const service of stackServices) {
      const { spec } = deployment(service.name);
      expect(mainContainer(deployment(service.name)).command).toEqual([
        'node',
        '--import',
        'tsx',
        service.entry,
      ]);
      const migrate = `services/${service.name}/src/migrate.ts`;
      expect(spec.template.spec.initContainers?.map((c) => c.command)).toEqual([
        ['node', '--import', 'tsx', migrate],
      ]);
      for (const file of [service.entry, migrate]) expect(existsSync(join(repoRoot, file))).toBe(true);
      // The migrations load the service's own config: the same variables as the service.
      expect(spec.template.spec.initContainers![0]!.envFrom).toEqual(
        mainContainer(deployment(service.name)).envFrom,
      );
    }
  });

  test('readiness, liveness and startup probes hit a health path on the port the process serves it on', () => {
    const secretValues = madeUpSecrets();
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
    for (const { process, workload } of workloads)
      for (const container of [
        ...(workload.spec.template.spec.initContainers ?? []),
        mainContainer(workload),
      ]) {
        const unread = Object.keys(containerEnv(container)).filter(
          (name) => !process.variables.includes(name) && !runtimeVariables.includes(name),
        );
        expect({ process: process.name, container: container.name, unread }).toEqual({
          process: process.name,
          container: container.name,
          unread: [],
        });
        for (const source of container.envFrom ?? []) {
          const name = source.configMapRef?.name ?? source.secretRef!.name;
          read.set(name, new Set([...(read.get(name) ?? []), ...process.variables]));
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
      const missing = productionRequired(service).filter((name) => !(name in env));
      expect({ service: service.name, missing }).toEqual({ service: service.name, missing: [] });
      expect(env.APP_ENV).toBe('production');
    }
  });

  test('with its Secrets filled in, every service loads its production config by its own rules', () => {
    const secretValues = madeUpSecrets();
    for (const service of [...stackServices]) {
      const env = containerEnv(mainContainer(deployment(service.name)), secretValues);
      expect(() => service.load(env)).not.toThrow();
    }
    const job = jobs.find((j) => j.metadata.name === definitionsStep.name)!;
    expect(() => definitionsStep.load(containerEnv(mainContainer(job), secretValues))).not.toThrow();
  });

  test('the example Secrets hold placeholders only, each marked REPLACE_ME', () => {
    for (const secret of secrets)
      for (const [key, value] of Object.entries(secret.stringData))
        expect({ secret: secret.metadata.name, key, marked: value.includes('REPLACE_ME') }).toEqual({
          secret: secret.metadata.name,
          key,
          marked: true,
        });
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

  test('every container requests CPU and memory, caps memory, and runs unprivileged on a read-only filesystem', () => {
    for (const workload of [...deployments, ...jobs]) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
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

  test('the Services reach the ports the processes serve: the API and the PSP callbacks', () => {
    const services = ofKind<K8sObject & { spec: { selector: Env; ports: Array<{ targetPort: string }> } }>(
      'Service',
    );
    const secretValues = madeUpSecrets();
    const served = (name: string, port: number) => {
      const container = mainContainer(deployment(name));
      return container.ports!.find((p) => p.containerPort === port)!.name;
    };
    const gateway = containerEnv(mainContainer(deployment('api-gateway')), secretValues);
    const adapter = containerEnv(mainContainer(deployment('pix-adapter')), secretValues);
    const expected = {
      'api-gateway': served('api-gateway', Number(gateway.PORT)),
      'pix-adapter-callbacks': served('pix-adapter', Number(adapter.CALLBACK_PORT)),
    };
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

  test('the RabbitMQ definitions Job applies the file in the image, to the vhost and user of AMQP_URL', () => {
    const job = jobs.find((j) => j.metadata.name === definitionsStep.name)!;
    expect(mainContainer(job).command).toEqual(['node', '--import', 'tsx', definitionsStep.entry]);
    const env = containerEnv(mainContainer(job), madeUpSecrets());
    const amqpUrl = new URL(containerEnv(mainContainer(deployment('payment'))).AMQP_URL!);
    expect(definitionsStep.load(env).RABBITMQ_APP_USERS).toEqual([amqpUrl.username]);
    expect(amqpUrl.pathname).toBe(`/${DEPLOYED_TOPOLOGY.vhost}`);
    for (const service of stackServices)
      expect(containerEnv(mainContainer(deployment(service.name))).AMQP_PREFIX ?? '').toBe(
        DEPLOYED_TOPOLOGY.prefix,
      );
  });
});
