/**
 * `pnpm build`: compiles each entry file of the stack (every process's `src/main.ts`, each service's `src/migrate.ts`,
 * the deployment's broker steps) to one JavaScript file, `<package>/dist/<entry>.js` with its source map, which
 * `node <package>/dist/<entry>.js` runs with no loader (ADR 0045). It takes about 20 s on two cores.
 *
 * - The workspace's own packages (`@gateway/*`) and third-party packages are compiled into the file, minified (ADR
 *   0050), but for those KEPT_OUTSIDE names: OpenTelemetry's instrumentation must find pg, express, amqplib and ioredis
 *   as it patches them, and packages that read their own files (pino, swagger-ui-dist, maildev) must find them. Each
 *   package the workspace's code imports must be a dependency of the process's own package: the build refuses one that
 *   is not, because an image holding only that package's production dependencies would not have it.
 * - A folder named `assets` beside a source file is read at run time through `__dirname`: it is copied to
 *   `dist/assets`, where the compiled file's `__dirname` finds it. Two assets of one name would overwrite each other:
 *   the build refuses them.
 *
 * - Stack traces name the TypeScript: each file starts by installing source-map-support, which reads a file's source
 *   map the first time a stack trace passes through that file. Node's own `--enable-source-maps` reads the map of every
 *   file as it loads it, TypeORM's and OpenTelemetry's thousands included: 8 to 32 MiB more of each service, measured
 *   (ADR 0046).
 *
 * Each file is replaced by a rename, so a stack starting while another run builds never reads half a file.
 */
import { build, type Plugin } from 'esbuild';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { builtinModules } from 'node:module';
import { compiledEntries } from './compiled-entries';

export { compiledEntries, compiledEntry } from './compiled-entries';

const root = join(__dirname, '../../..');

/** What each compiled file runs first (see above); its package must declare it, as any other third-party import. */
const SOURCE_MAPS_PACKAGE = 'source-map-support';
// 'use strict' first: esbuild writes the directive at the top of each file (the workspace compiles strict), and after
// another statement it would be a plain string. Uncaught exceptions are left to node (printed with the mapped stack,
// exit code 1, as without the package): the package's own handler would print and exit itself.
const SOURCE_MAPS_BANNER = `'use strict';\nrequire('${SOURCE_MAPS_PACKAGE}').install({ environment: 'node', handleUncaughtExceptions: false });`;

/** The package a bare import names: `@scope/name` or `name`, without a subpath. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Third-party packages a compiled file leaves as `require`s, with everything they import (ADR 0050); every other
 * package goes inside the file, minified, which takes about a third of the memory and the time loading them costs as
 * separate files (TypeORM alone is about 500 files).
 *
 * - OpenTelemetry's instrumentations patch pg, express, ioredis, amqplib and undici as they are required: those, and
 *   OpenTelemetry itself, must be loaded from their packages.
 * - pino starts its transports from files of its own; swagger-ui-dist serves its files; maildev reads its own; litesvm
 *   is a native module; source-map-support is what each file runs first.
 * - app-root-path (TypeORM's) tells the application's folder from its own path as it loads: inside the file it guessed
 *   from the command line, and a file loaded by `node -e` failed to load. The processes that use TypeORM declare it.
 */
const KEPT_OUTSIDE = new Set([
  'pg',
  'express',
  'ioredis',
  'amqplib',
  'undici',
  'pino',
  'swagger-ui-dist',
  'maildev',
  'litesvm',
  SOURCE_MAPS_PACKAGE,
  'app-root-path',
]);

/**
 * Packages compiled in from the pure-JavaScript build they publish beside a native one (their `browser` field), and
 * that build's file in the package:
 * - bigint-buffer (the Solana token libraries' u64 fields) loads a native module through `bindings`, which looks for it
 *   from the requiring file's path, a path a compiled file no longer has: it warned and fell back to JavaScript at each
 *   start. Its JavaScript build reads and writes the same numbers, and leaves out the native `toBigIntLE`, which has a
 *   published buffer overflow (GHSA-3gc7-fjrx-p6mg). A token amount is 8 bytes: the JavaScript costs nothing we can
 *   measure (ADR 0051).
 */
const PURE_JS_BUILDS: ReadonlyMap<string, string> = new Map([['bigint-buffer', 'dist/browser.js']]);

/** Whether a package stays a `require` of the compiled file (see KEPT_OUTSIDE). */
function keptOutside(name: string): boolean {
  return KEPT_OUTSIDE.has(name) || name.startsWith('@opentelemetry/');
}

/** The `package.json` of a package as Node would find it from a folder. */
function packageJsonOf(name: string, dir: string): string {
  return require.resolve(`${name}/package.json`, { paths: [dir] });
}

/** Whether Node would find a package from a folder: a `node_modules/<name>` in it or in a folder above it. */
function installedFrom(dir: string, name: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules', name))) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * Bundles third-party packages except those kept outside, and records a package the workspace's code imports that the
 * process's package does not declare: Node would find it from the compiled file only by chance (pnpm gives a package
 * only its own dependencies), and an image holding that package's production dependencies would not have it. A
 * package a bundled one imports and that is not installed (an optional dependency, a driver TypeORM supports and we do
 * not use) stays a `require` that fails at run time, as it did from its package.
 */
function thirdPartyPackages(packageDir: string, undeclared: Map<string, string>): Plugin {
  const manifest = JSON.parse(readFileSync(resolve(root, packageDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const declared = new Set(Object.keys(manifest.dependencies ?? {}));
  const builtins = new Set(builtinModules);
  return {
    name: 'third-party-packages',
    setup(pluginBuild) {
      if (!declared.has(SOURCE_MAPS_PACKAGE)) undeclared.set(SOURCE_MAPS_PACKAGE, 'the compiled file itself');
      pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = packageName(args.path);
        if (args.path.startsWith('node:') || builtins.has(name)) return { external: true };
        if (name.startsWith('@gateway/')) return undefined;
        const pureJs = PURE_JS_BUILDS.get(args.path);
        if (pureJs) return { path: join(dirname(packageJsonOf(name, args.resolveDir)), pureJs) };
        const fromWorkspace = !args.importer.split(sep).includes('node_modules');
        if (fromWorkspace && !declared.has(name) && !undeclared.has(name))
          undeclared.set(name, relative(root, args.importer));
        if (!installedFrom(args.resolveDir, name)) return { external: true };
        // A package kept outside that this process's package does not declare, imported by a bundled one (TypeORM's
        // Redis cache in a process without Redis): it could not be required from the compiled file, so it goes inside.
        return keptOutside(name) && declared.has(name) ? { external: true } : undefined;
      });
    },
  };
}

/**
 * In one compiled file every module's `module` is the file's own, so a module's `if (require.main === module)` (a
 * script's "run me when started") would run inside every process that imports it: only an entry may hold one.
 */
function entryGuardsOnlyInEntries(entries: Set<string>): Plugin {
  return {
    name: 'entry-guards-only-in-entries',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => {
        if (entries.has(args.path)) return undefined;
        if (!/require\.main\s*===?\s*module/.test(readFileSync(args.path, 'utf8'))) return undefined;
        return {
          errors: [
            {
              text: `${relative(root, args.path)} runs itself when require.main === module, and is imported by an entry: move what it exports to a module of its own`,
            },
          ],
        };
      });
    },
  };
}

/** Every `assets` folder under a source tree. */
function assetFolders(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) return [];
    return entry === 'assets' ? [path] : assetFolders(path);
  });
}

/**
 * Writes a file by a rename: a stack starting while another run builds (two jest runs at once) reads the old file or
 * the new one, never half of one.
 */
function replaceFile(path: string, contents: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Copies the package's asset folders into `outDir/assets`, refusing two files of one name; returns what it wrote. */
function copyAssets(packageDir: string, outDir: string): string[] {
  const seen = new Map<string, string>();
  for (const folder of assetFolders(resolve(root, packageDir, 'src'))) {
    for (const file of readdirSync(folder)) {
      const other = seen.get(file);
      if (other)
        throw new Error(
          `${packageDir}: two assets named ${file} (${other} and ${folder}) would share dist/assets`,
        );
      seen.set(file, folder);
      replaceFile(join(outDir, 'assets', file), readFileSync(join(folder, file)));
    }
  }
  return [...seen.keys()].map((file) => join(outDir, 'assets', file));
}

/** Every file under a folder, recursively, with its age; a file another build renames away meanwhile is passed by. */
function filesUnder(dir: string): Array<{ path: string; ageMs: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) return [];
    return stats.isDirectory() ? filesUnder(path) : [{ path, ageMs: Date.now() - stats.mtimeMs }];
  });
}

/** Past this age a `.tmp` file is a crashed build's, not another build's in the middle of its rename. */
const ABANDONED_TEMPORARY_MS = 60_000;

/**
 * Compiles a package's entries (`src/<name>.ts`) into `outDir`, each into a file of its own (`<name>.js`), and removes
 * what an earlier build left there that this one did not write (an entry or asset since removed). `packageDir` is the
 * package's folder from the repository's root, or an absolute path.
 */
export async function compilePackage(packageDir: string, names: string[], outDir: string): Promise<void> {
  const undeclared = new Map<string, string>();
  const written = new Set<string>();
  for (const name of names) {
    const entryPoint = resolve(root, packageDir, 'src', `${name}.ts`);
    const { outputFiles } = await build({
      write: false,
      entryPoints: [entryPoint],
      outfile: join(outDir, `${name}.js`),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // The workspace's compiler options whatever the folder (the image's build stage, a package outside the tree):
      // without them esbuild would compile TypeORM's decorators as the standard ones, which TypeORM cannot take.
      tsconfig: join(root, 'tsconfig.base.json'),
      // As tsx runs the sources: class and function names kept (errors and entities are told apart by them).
      keepNames: true,
      minify: true,
      sourcemap: 'linked',
      sourcesContent: false,
      banner: { js: SOURCE_MAPS_BANNER },
      logLevel: 'warning',
      // `require.resolve('./main')` in telemetry.ts asks whether this file is the entry: in the compiled file it names
      // the compiled file itself, which is what the check wants.
      logOverride: { 'require-resolve-not-external': 'silent' },
      // Each entry alone: a guard in `main.ts` imported by `migrate.ts` would start the service in the migrations.
      plugins: [thirdPartyPackages(packageDir, undeclared), entryGuardsOnlyInEntries(new Set([entryPoint]))],
    });
    for (const file of outputFiles) written.add(file.path);
    if (undeclared.size === 0) for (const file of outputFiles) replaceFile(file.path, file.contents);
  }
  if (undeclared.size > 0) {
    throw new Error(
      `${packageDir}/package.json must declare what its compiled files require: ${[...undeclared].map(([name, importer]) => `${name} (imported by ${importer})`).join(', ')}`,
    );
  }
  for (const file of copyAssets(packageDir, outDir)) written.add(file);
  // Another build's file in the middle of its rename (a fresh `.tmp`) is left to it.
  for (const { path, ageMs } of filesUnder(outDir)) {
    const temporary = path.endsWith('.tmp');
    if (!written.has(path) && (!temporary || ageMs > ABANDONED_TEMPORARY_MS)) rmSync(path, { force: true });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  await Promise.all(
    Object.entries(compiledEntries).map(([packageDir, names]) =>
      compilePackage(packageDir, names, join(root, packageDir, 'dist')),
    ),
  );
  const files = Object.values(compiledEntries).flat().length;
  // eslint-disable-next-line no-console -- the command's one line of output
  console.log(`${files} entry files compiled into each package's dist/ in ${Date.now() - started} ms`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    // eslint-disable-next-line no-console -- what the build refused, for the person who ran it
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
