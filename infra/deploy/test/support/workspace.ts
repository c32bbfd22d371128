/**
 * The workspace as pnpm sees it: the package folders pnpm-workspace.yaml lists, their manifests, the graph of the
 * workspace packages each depends on, and the cycles in that graph.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const repoRoot = join(__dirname, '../../../..');

export interface Manifest {
  name?: string;
  main?: string;
  types?: string;
  module?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** Relative to the repository's root, e.g. `packages/testkit`. */
  folder: string;
  manifest: Manifest;
}

export function readManifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, folder, 'package.json'), 'utf8')) as Manifest;
}

/** Every package in the folders pnpm-workspace.yaml lists (the root aside). */
export function workspacePackages(): WorkspacePackage[] {
  const { packages } = parse(readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8')) as {
    packages: string[];
  };
  return packages
    .flatMap((folder) =>
      folder.endsWith('/*')
        ? readdirSync(join(repoRoot, folder.slice(0, -2))).map((name) => `${folder.slice(0, -2)}/${name}`)
        : [folder],
    )
    .filter((folder) => existsSync(join(repoRoot, folder, 'package.json')))
    .map((folder) => ({ folder, manifest: readManifest(folder) }));
}

/** Every package a manifest names: dependencies, devDependencies, peer and optional ones alike. */
export function declaredDependencies(manifest: Manifest): string[] {
  return [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ];
}

/** Each workspace package's name and the workspace packages it depends on, dev dependencies included. */
export function workspaceDependencyGraph(packages: WorkspacePackage[]): Map<string, string[]> {
  const names = new Set(packages.map(({ manifest }) => manifest.name));
  return new Map(
    packages.map(({ folder, manifest }) => [
      manifest.name ?? folder,
      [...new Set(declaredDependencies(manifest).filter((name) => names.has(name)))].sort(),
    ]),
  );
}

/**
 * Every elementary cycle of `graph`, each once, written from its smallest name round to it again
 * (`['a', 'b', 'a']`), sorted. The strongly connected components (Tarjan) are found first, so an acyclic graph costs
 * one pass; the cycles are then walked inside each component only.
 */
export function dependencyCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const componentOf = new Map<string, number>();
  let components = 0;
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        componentOf.set(member, components);
      } while (member !== node);
      components += 1;
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);

  const cycles: string[][] = [];
  const walk = (start: string, path: string[]): void => {
    const last = path[path.length - 1]!;
    for (const next of graph.get(last) ?? []) {
      if (componentOf.get(next) !== componentOf.get(start)) continue;
      if (next === start) cycles.push([...path, start]);
      // Only nodes after the start: a cycle is found once, from its smallest name.
      else if (next > start && !path.includes(next)) walk(start, [...path, next]);
    }
  };
  for (const node of [...graph.keys()].sort()) walk(node, [node]);
  return cycles.sort((x, y) => x.join(' ').localeCompare(y.join(' ')));
}
