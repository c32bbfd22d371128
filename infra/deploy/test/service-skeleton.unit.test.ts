import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as contracts from '@gateway/contracts';
import { deployedServiceNames } from '@gateway/contracts';
import { repoRoot } from './support/deployment';

/** The rooms of a service (docs/CONVENTIONS.md): a newcomer predicts a file's path from its role. */
const rootFiles = new Set(['main.ts', 'config.ts', 'migrate.ts', 'telemetry.ts']);
const rooms = new Set(['domain', 'application', 'handlers', 'persistence', 'http', 'clients', 'commands']);
/** The one sub-room of application/: what two or more use cases share (a lookup that refuses, an event, a metric). */
const sharedRoom = 'shared';

const sourceOf = (service: string): string => join(repoRoot, 'services', service, 'src');

/** Every message the contracts define, by name. */
const messageNames = new Set(
  (Object.values(contracts) as unknown[])
    .filter(
      (value): value is { name: string; kind: string } =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { name?: unknown }).name === 'string' &&
        ['event', 'command'].includes((value as { kind?: unknown }).kind as string),
    )
    .map((definition) => definition.name),
);

/** The files of `dir` (not its folders), by path; none when it does not exist. */
const filesOf = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .map((entry) => join(dir, entry))
        .filter((path) => statSync(path).isFile())
    : [];

/** The files of this service that `file` imports by a relative path, without their `.ts`. */
const relativeImportsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) =>
    resolve(dirname(file), match[1]!),
  );

/** `payment-events.v1.ts`: one handler for a family of events (`payment.*.v1`), named after the family. */
const eventFamily = /^([a-z][a-z0-9-]*)-events\.v([1-9][0-9]*)\.ts$/;

/** `cancelOpenPayment` -> `cancel-open-payment`, `PaymentReconciliation` -> `payment-reconciliation`. */
const kebabCase = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();

/** The names of the values (functions, classes, constants) `file` exports. */
const exportedValuesOf = (file: string): string[] =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /^export (?:async )?(?:function\*?|class|abstract class|const|let) ([A-Za-z_$][A-Za-z0-9_$]*)/gm,
    ),
  ].map((match) => match[1]!);

/** A use case's file is named after what it exports: `cancel-open-payment.ts` exports `cancelOpenPayment`. */
const isNamedAfterAnExport = (file: string): boolean =>
  exportedValuesOf(file).some((name) => kebabCase(name) === basename(file, '.ts'));

function isHandlerName(file: string): boolean {
  if (messageNames.has(file.replace(/\.ts$/, ''))) return true;
  const family = eventFamily.exec(file);
  return (
    family !== null &&
    [...messageNames].some((name) => name.startsWith(`${family[1]}.`) && name.endsWith(`.v${family[2]}`))
  );
}

describe('every service has the same rooms', () => {
  it.each([...deployedServiceNames])(
    '%s has only main, config, migrate, telemetry and the named rooms in src',
    (service) => {
      const strays = readdirSync(sourceOf(service)).filter((entry) =>
        statSync(join(sourceOf(service), entry)).isDirectory() ? !rooms.has(entry) : !rootFiles.has(entry),
      );
      expect(strays).toEqual([]);
    },
  );

  it.each([...deployedServiceNames])(
    '%s: every file in handlers/ is named after a message it consumes',
    (service) => {
      let handlers: string[] = [];
      try {
        handlers = readdirSync(join(sourceOf(service), 'handlers'));
      } catch {
        // The services that consume no message: the gateway (it sends commands) and the dashboard (no broker at all).
        return expect(['api-gateway', 'dashboard']).toContain(service);
      }
      expect(handlers.filter((file) => !isHandlerName(file))).toEqual([]);
    },
  );

  it('knows the messages of the contracts, so a stray handler name cannot pass unnoticed', () => {
    expect(isHandlerName('payment.confirmed.v1.ts')).toBe(true);
    expect(isHandlerName('payment-events.v1.ts')).toBe(true);
    expect(isHandlerName('charge-view.ts')).toBe(false);
    expect(isHandlerName('payment.confirmd.v1.ts')).toBe(false);
  });

  it.each([...deployedServiceNames])(
    '%s: application/ holds use cases, one a file, and at most the shared/ room with nothing nested',
    (service) => {
      const application = join(sourceOf(service), 'application');
      const folders = readdirSync(application).filter((entry) =>
        statSync(join(application, entry)).isDirectory(),
      );
      expect(folders.filter((folder) => folder !== sharedRoom)).toEqual([]);
      const shared = join(application, sharedRoom);
      const nested = existsSync(shared)
        ? readdirSync(shared).filter((entry) => statSync(join(shared, entry)).isDirectory())
        : [];
      expect(nested).toEqual([]);
    },
  );

  it.each([...deployedServiceNames])(
    '%s: every file in application/shared/ is used by two or more use cases or handlers, or it belongs in its one user',
    (service) => {
      const source = sourceOf(service);
      const users = [...filesOf(join(source, 'application')), ...filesOf(join(source, 'handlers'))];
      const lonely = filesOf(join(source, 'application', sharedRoom)).filter((shared) => {
        const module = shared.replace(/\.ts$/, '');
        return users.filter((user) => relativeImportsOf(user).includes(module)).length < 2;
      });
      expect(lonely).toEqual([]);
    },
  );

  it.each([...deployedServiceNames])(
    '%s: every use case in application/ is in a file named after what it exports',
    (service) => {
      const misnamed = filesOf(join(sourceOf(service), 'application')).filter(
        (file) => !isNamedAfterAnExport(file),
      );
      expect(misnamed).toEqual([]);
    },
  );

  it('no two services have a use case file of the same name', () => {
    const names = deployedServiceNames.flatMap((service) =>
      filesOf(join(sourceOf(service), 'application')).map((file) => basename(file)),
    );
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('tells a file named after its export from one named after something else', () => {
    expect(kebabCase('PaymentReconciliation')).toBe('payment-reconciliation');
    expect(kebabCase('cancelOpenPayment')).toBe('cancel-open-payment');
    expect(kebabCase('readPSPStatus')).toBe('read-psp-status');
    const source = join(sourceOf('payment'), 'application');
    expect(isNamedAfterAnExport(join(source, 'payment-reconciliation.ts'))).toBe(true);
    expect(isNamedAfterAnExport(join(source, 'record-rail-outcome.ts'))).toBe(true);
    expect(isNamedAfterAnExport(join(sourceOf('payment'), 'main.ts'))).toBe(false);
  });
});
