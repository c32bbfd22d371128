/**
 * Vendors the JSON schemas of the Kubernetes kinds infra/k8s uses, from the OpenAPI v2 document of a Kubernetes
 * release (its `swagger.json`), as kubeconform's "standalone-strict" schemas are made: every definition a kind
 * reaches is kept, IntOrString and Quantity accept what YAML gives them (a number or a string), objects with known
 * properties refuse unknown ones (a misspelt `readinesProbe` is an error, not a silently ignored key), and each kind
 * pins its own `apiVersion` and `kind`. Descriptions and `x-kubernetes-*` extensions are dropped: only the structure is
 * validated.
 *
 *   pnpm --filter @gateway/deploy vendor-kubernetes-schemas <swagger.json> <label, e.g. v1.36>
 *
 * writes schemas/kubernetes-<label>-strict.json (format it with prettier afterwards).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The kinds infra/k8s uses, by OpenAPI definition name; a new kind there is added here and the file vendored again. */
export const vendoredKinds = [
  'io.k8s.api.core.v1.Namespace',
  'io.k8s.api.core.v1.ConfigMap',
  'io.k8s.api.core.v1.Secret',
  'io.k8s.api.core.v1.Service',
  'io.k8s.api.core.v1.ServiceAccount',
  'io.k8s.api.rbac.v1.Role',
  'io.k8s.api.rbac.v1.RoleBinding',
  'io.k8s.api.apps.v1.Deployment',
  'io.k8s.api.apps.v1.StatefulSet',
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
  'io.k8s.api.policy.v1.PodDisruptionBudget',
  'io.k8s.api.batch.v1.Job',
];

type Schema = { [key: string]: unknown };

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const DEFINITION_REF = '#/definitions/';

/** YAML reads `port: 8080` as a number and `cpu: 1` as a number: both forms are valid Kubernetes values. */
const replacedDefinitions: Record<string, Schema> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' || key.startsWith('x-kubernetes-')) continue;
    // A property map's keys are names, not keywords: each value is a schema.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Schema).map(([name, schema]) => [name, strict(schema)]))
        : strict(value);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function referencedDefinitions(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) node.forEach((item) => referencedDefinitions(item, found));
  else if (node !== null && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFINITION_REF))
        found.add(value.slice(DEFINITION_REF.length));
      else referencedDefinitions(value, found);
    }
}

/** The definitions of `kinds` and of everything they reach, made strict. */
export function strictKindSchemas(swagger: { definitions: Record<string, Schema> }, kinds: string[]): Schema {
  const reachable = new Set<string>();
  const pending = [...kinds];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (reachable.has(name)) continue;
    const definition = swagger.definitions[name];
    if (!definition) throw new Error(`no definition ${name} in the OpenAPI document`);
    reachable.add(name);
    if (replacedDefinitions[name]) continue;
    const refs = new Set<string>();
    referencedDefinitions(definition, refs);
    pending.push(...refs);
  }
  const definitions: Record<string, unknown> = {};
  for (const name of [...reachable].sort()) {
    const definition = swagger.definitions[name]!;
    const schema = (replacedDefinitions[name] ?? strict(definition)) as Schema;
    const gvk = (definition['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined)?.[0];
    if (kinds.includes(name) && gvk) {
      const properties = schema.properties as Record<string, Schema>;
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      properties.apiVersion = { type: 'string', enum: [apiVersion] };
      properties.kind = { type: 'string', enum: [gvk.kind] };
      schema.required = [...new Set([...((schema.required as string[]) ?? []), 'apiVersion', 'kind'])];
    }
    definitions[name] = schema;
  }
  return definitions;
}

function main(): void {
  const [swaggerPath, label] = process.argv.slice(2);
  if (!swaggerPath || !label) {
    process.stderr.write('usage: vendor-kubernetes-schemas <swagger.json> <label, e.g. v1.36>\n');
    process.exit(64);
  }
  const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8')) as { definitions: Record<string, Schema> };
  const file = `kubernetes-${label}-strict.json`;
  const document = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: file,
    definitions: strictKindSchemas(swagger, vendoredKinds),
  };
  writeFileSync(join(__dirname, '../schemas', file), `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote schemas/${file}\n`);
}

if (require.main === module) main();
