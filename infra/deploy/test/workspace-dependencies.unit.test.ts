import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  declaredDependencies,
  dependencyCycles,
  repoRoot,
  workspaceDependencyGraph,
  workspacePackages,
  type WorkspacePackage,
} from './support/workspace';

/**
 * The workspace packages depend on each other in one direction only, dev dependencies included: a package's tests
 * use only packages below it (the low packages' tests take their helpers from @gateway/testkit-core, never from the
 * test kit of the services above them). And the manifests tell the whole graph: a file imports another workspace
 * package only by its name, and only one its package declares; production code only through that package's entry.
 */

const packages = workspacePackages();
const graph = workspaceDependencyGraph(packages);

/** The source files of a package: code, tests, benches and scripts, installed and built files aside. */
function sourceFiles(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory())
        return ['node_modules', 'dist', 'coverage'].includes(entry.name) ? [] : walk(path);
      return /\.(ts|tsx|js|cjs|mjs)$/.test(entry.name) ? [path] : [];
    });
  return walk(folder);
}

/** What a file imports or requires: `from '…'`, `import '…'`, `import('…')`, `require('…')`, `jest.mock('…')`. */
function specifiers(text: string): string[] {
  return [
    ...text.matchAll(
      /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\bjest\.mock\s*\(\s*)['"]([^'"]+)['"]/g,
    ),
  ].map((match) => match[1]!);
}

const workspaceNames = new Set(packages.map(({ manifest }) => manifest.name));
/** `@gateway/api-gateway/src/config` is the package `@gateway/api-gateway`. */
const packageOf = (specifier: string): string => specifier.split('/').slice(0, 2).join('/');

function undeclaredImports({ folder, manifest }: WorkspacePackage): string[] {
  const declared = new Set([manifest.name, ...declaredDependencies(manifest)]);
  return sourceFiles(folder).flatMap((file) =>
    specifiers(readFileSync(join(repoRoot, file), 'utf8'))
      .map(packageOf)
      .filter((name) => workspaceNames.has(name) && !declared.has(name))
      .map((name) => `${file} imports ${name}`),
  );
}

function importsOutsideThePackage({ folder }: WorkspacePackage): string[] {
  return sourceFiles(folder).flatMap((file) =>
    specifiers(readFileSync(join(repoRoot, file), 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .filter((specifier) => {
        const target = relative(join(repoRoot, folder), resolve(repoRoot, dirname(file), specifier));
        return target === '..' || target.startsWith(`..${sep}`);
      })
      .map((specifier) => `${file} imports ${specifier}`),
  );
}

/** `@gateway/sdk/src/generated/types`: a path past a package's entry, into its source. */
const intoSource = (specifier: string): boolean => /^@gateway\/[^/]+\/src(\/|$)/.test(specifier);

/**
 * Where a package's production code (`src/`) reaches into another workspace package's source instead of its entry.
 * A package its build bundles (tsup `noExternal`) is the exception: the SDK takes single modules of the contracts so
 * that its bundle holds only them, never the index (which loads joi). Tests, benches and the deployment checks may
 * reach into a service's source (a service has no library entry: they read its config and its persistence).
 */
function importsPastTheEntry({ folder, manifest }: WorkspacePackage, under = 'src'): string[] {
  if (!existsSync(join(repoRoot, folder, under))) return [];
  const bundled = new Set((manifest as { tsup?: { noExternal?: string[] } }).tsup?.noExternal ?? []);
  return sourceFiles(`${folder}/${under}`).flatMap((file) =>
    specifiers(readFileSync(join(repoRoot, file), 'utf8'))
      .filter((specifier) => intoSource(specifier) && !bundled.has(packageOf(specifier)))
      .filter((specifier) => packageOf(specifier) !== manifest.name)
      .map((specifier) => `${file} imports ${specifier}`),
  );
}

describe('dependencies between workspace packages', () => {
  test('no cycle among the workspace packages, dev dependencies included', () => {
    expect(dependencyCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  test('the check finds every cycle, a dev dependency closing one included', () => {
    const sample = new Map([
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(dependencyCycles(sample)).toEqual([
      ['a', 'b', 'a'],
      ['a', 'b', 'c', 'a'],
      ['d', 'd'],
    ]);
    // The workspace as it was, when messaging's tests used the services' test kit.
    const withOldDevDependency = new Map(graph);
    withOldDevDependency.set('@gateway/messaging', [...graph.get('@gateway/messaging')!, '@gateway/testkit']);
    expect(dependencyCycles(withOldDevDependency).map((cycle) => cycle.join(' -> '))).toContain(
      '@gateway/messaging -> @gateway/testkit -> @gateway/messaging',
    );
  });

  test('every workspace package a file imports is one its package declares', () => {
    expect(packages.flatMap(undeclaredImports)).toEqual([]);
    // The scan itself sees the imports: the gateway's tests import the test kit, the deployment checks the configs.
    const gateway = packages.find(({ folder }) => folder === 'services/api-gateway')!;
    expect(undeclaredImports({ ...gateway, manifest: { name: gateway.manifest.name } })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^services\/api-gateway\/test\/.* imports @gateway\/testkit$/),
      ]),
    );
  });

  test('a file reaches another workspace package only by its name, never by a relative path', () => {
    expect(packages.flatMap(importsOutsideThePackage)).toEqual([]);
  });

  test('production code reaches another workspace package through its entry, never into its src/', () => {
    expect(packages.flatMap((pkg) => importsPastTheEntry(pkg))).toEqual([]);
    // The scan itself sees such imports: the deployment checks read the services' configs from their sources.
    const deploy = packages.find(({ folder }) => folder === 'infra/deploy')!;
    expect(importsPastTheEntry(deploy, 'test')).toEqual(
      expect.arrayContaining([expect.stringMatching(/ imports @gateway\/api-gateway\/src\/config$/)]),
    );
  });
});
