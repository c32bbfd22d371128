/**
 * `pnpm sbom [folder]`: a CycloneDX 1.6 software bill of materials (JSON) for each process the images run,
 * `<folder>/<process>.cdx.json` (default `artifacts/sbom`). Each lists the process (the application), every package of
 * its production dependencies as pnpm installed them from the lockfile (name, version, package URL, the licence its
 * package.json declares, where it was downloaded from) and who depends on whom. The image's build stage writes them to
 * `/app/sbom` in the image it ships.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Enums, Models, Serialize, Spec, SPDX } from '@cyclonedx/cyclonedx-library';
import { PackageURL } from 'packageurl-js';
import { compiledEntries } from './build';

const root = join(__dirname, '../../..');

/** One node of `pnpm list --json --depth Infinity`. */
export interface Listed {
  version: string;
  path: string;
  resolved?: string;
  dependencies?: Record<string, Listed>;
}
interface ListedProject {
  name: string;
  version: string;
  dependencies?: Record<string, Listed>;
}

/** The licence a package's manifest declares: `license`, or the older `licenses` list; undefined when it says none. */
function declaredLicence(path: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as {
    license?: string | { type?: string };
    licenses?: Array<string | { type?: string }>;
  };
  const text = (value: string | { type?: string } | undefined) =>
    typeof value === 'string' ? value : value?.type;
  if (manifest.license) return text(manifest.license);
  const listed = (manifest.licenses ?? []).map(text).filter((value): value is string => Boolean(value));
  return listed.length > 0 ? listed.join(' OR ') : undefined;
}

function licence(expression: string): Models.License {
  if (SPDX.isSupportedSpdxId(expression)) return new Models.SpdxLicense(expression);
  if (/\s(AND|OR|WITH)\s/.test(expression)) return new Models.LicenseExpression(expression);
  return new Models.NamedLicense(expression);
}

function packageUrl(name: string, version: string): PackageURL {
  const [namespace, bare] = name.startsWith('@') ? name.split('/') : [undefined, name];
  return new PackageURL('npm', namespace, bare!, version, undefined, undefined);
}

/** The bill of materials of one workspace package's production dependencies, as pnpm lists them. */
export function billOfMaterials(project: ListedProject): Models.Bom {
  const bom = new Models.Bom();
  const application = new Models.Component(Enums.ComponentType.Application, project.name, {
    version: project.version,
    bomRef: `${project.name}@${project.version}`,
  });
  bom.metadata.component = application;
  const components = new Map<string, Models.Component>();
  /** The component of a listed package, made once however many depend on it; its own dependencies recorded. */
  const visit = (name: string, listed: Listed): Models.Component => {
    // A workspace library (`link:`) is compiled into the process's file: listed as part of it, with its version and no
    // package URL (it is no npm package). What it requires is the process's own dependencies (the build checks it),
    // which are listed there; the image installs nothing of its own.
    if (listed.version.startsWith('link:')) {
      const { version } = JSON.parse(readFileSync(join(listed.path, 'package.json'), 'utf8')) as {
        version: string;
      };
      const ref = `${name}@${version}`;
      const component =
        components.get(ref) ??
        new Models.Component(Enums.ComponentType.Library, name, {
          version,
          bomRef: ref,
          description: 'compiled into the process',
        });
      if (!components.has(ref)) bom.components.add(component);
      components.set(ref, component);
      return component;
    }
    const ref = `${name}@${listed.version}`;
    const known = components.get(ref);
    if (known) return known;
    const found = declaredLicence(listed.path);
    const component = new Models.Component(Enums.ComponentType.Library, name, {
      version: listed.version,
      bomRef: ref,
      purl: packageUrl(name, listed.version).toString(),
      licenses: new Models.LicenseRepository(found ? [licence(found)] : []),
      externalReferences: new Models.ExternalReferenceRepository(
        listed.resolved
          ? [new Models.ExternalReference(listed.resolved, Enums.ExternalReferenceType.Distribution)]
          : [],
      ),
    });
    components.set(ref, component);
    bom.components.add(component);
    for (const [child, node] of Object.entries(listed.dependencies ?? {}))
      component.dependencies.add(visit(child, node).bomRef);
    return component;
  };
  for (const [name, listed] of Object.entries(project.dependencies ?? {}))
    application.dependencies.add(visit(name, listed).bomRef);
  return bom;
}

/** pnpm's `--filter` arguments selecting these packages (folders from the repository's root). */
export function packageFilters(packageDirs: readonly string[]): string[] {
  return packageDirs.flatMap((dir) => ['--filter', `./${dir}`]);
}

/**
 * Each package's production dependency tree, from what pnpm installed (the lockfile's versions), in one `pnpm list`
 * for all of them.
 */
export async function listProduction(packageDirs: readonly string[]): Promise<ListedProject[]> {
  const { stdout } = await promisify(execFile)(
    'pnpm',
    [...packageFilters(packageDirs), 'list', '--prod', '--depth', 'Infinity', '--json'],
    { cwd: root, maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as ListedProject[];
}

/** The bill of materials as CycloneDX 1.6 JSON, its lists sorted so the same tree always gives the same text. */
export function serialize(bom: Models.Bom): string {
  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return serializer.serialize(bom, { sortLists: true, space: 2 });
}

async function main(): Promise<void> {
  const folder = resolve(process.argv[2] ?? join(root, 'artifacts/sbom'));
  mkdirSync(folder, { recursive: true });
  for (const project of await listProduction(Object.keys(compiledEntries))) {
    const file = join(folder, `${project.name.replace(/^@gateway\//, '')}.cdx.json`);
    writeFileSync(file, `${serialize(billOfMaterials(project))}\n`);
  }
  // eslint-disable-next-line no-console -- the command's one line of output
  console.log(`${Object.keys(compiledEntries).length} bills of materials written to ${folder}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    // eslint-disable-next-line no-console -- what failed, for the person who ran it
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
