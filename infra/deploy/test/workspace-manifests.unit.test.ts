import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deployedServiceNames } from '@gateway/contracts';
import { readManifest, repoRoot, workspacePackages, type Manifest } from './support/workspace';

const exportTargets = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(exportTargets)
      : [];

/**
 * The files a manifest's entry fields name. `publishConfig` aside: it describes the packed package, whose `dist/` the
 * pack step builds.
 */
function entryFiles(manifest: Manifest): string[] {
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  return [manifest.main, manifest.types, manifest.module, ...bins, ...exportTargets(manifest.exports)].filter(
    (file): file is string => file !== undefined,
  );
}

/** The files its scripts run (`tsx src/migrate.ts`, `node bin/gateway.cjs`). */
function scriptFiles(manifest: Manifest): string[] {
  return Object.values(manifest.scripts ?? {}).flatMap((script) =>
    [...script.matchAll(/(?:^|\s)(?:tsx|node)\s+(\S+\.[cm]?[jt]s)(?=\s|$)/g)].map((match) => match[1]!),
  );
}

/** The workspace root and every package in the folders pnpm-workspace.yaml lists. */
const packages = [{ folder: '.', manifest: readManifest('.') }, ...workspacePackages()];

describe('workspace package manifests', () => {
  test('list every package: the root, the seven services, the shared packages, the stand-ins', () => {
    const folders = packages.map(({ folder }) => folder);
    expect(folders).toEqual(
      expect.arrayContaining([
        '.',
        ...deployedServiceNames.map((service) => `services/${service}`),
        'packages/contracts',
        'infra/psp-simulator',
      ]),
    );
  });

  test('main, types, module, bin and exports name files that exist', () => {
    for (const { folder, manifest } of packages) {
      const missing = entryFiles(manifest).filter((file) => !existsSync(join(repoRoot, folder, file)));
      expect({ package: manifest.name ?? folder, missing }).toEqual({
        package: manifest.name ?? folder,
        missing: [],
      });
    }
  });

  test('every script that runs a file runs one that exists', () => {
    for (const { folder, manifest } of packages) {
      const missing = scriptFiles(manifest).filter((file) => !existsSync(join(repoRoot, folder, file)));
      expect({ package: manifest.name ?? folder, missing }).toEqual({
        package: manifest.name ?? folder,
        missing: [],
      });
    }
    // The script parsing itself finds what the services run.
    expect(scriptFiles(packages.find(({ folder }) => folder === 'services/payment')!.manifest)).toEqual([
      'src/main.ts',
      'src/migrate.ts',
    ]);
  });

  test('the services folder holds exactly the services of the one list (contracts `deployedServiceNames`)', () => {
    const folders = readdirSync(join(repoRoot, 'services')).filter((name) =>
      existsSync(join(repoRoot, 'services', name, 'package.json')),
    );
    expect(folders.sort()).toEqual([...deployedServiceNames].sort());
  });
});
