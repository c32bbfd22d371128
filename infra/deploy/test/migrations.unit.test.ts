import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { outboxInboxMigrations } from '@gateway/messaging';
import { repoRoot } from './support/deployment';
import { serviceDatabases } from './support/service-databases';

type Migration = new () => { name?: string };

/** Each service's own migrations as it lists them. */
const serviceLists = Object.entries(serviceDatabases).map(
  ([service, { migrations }]) => [service, migrations as Migration[]] as const,
);
/** ...and the backbone's (outbox and inbox), which every service runs in front of its own. */
const lists = [['outbox and inbox', outboxInboxMigrations] as const, ...serviceLists];
const everyMigration = lists.flatMap(([, migrations]) => migrations);

/** TypeORM orders migrations by the last 13 digits of their names. */
const timestampOf = (migration: Migration): string => /\d{13}$/.exec(migration.name)?.[0] ?? '';

describe('migrations', () => {
  test('each is named after its class: a name, then the 13-digit timestamp TypeORM orders by', () => {
    for (const migration of everyMigration) {
      expect(new migration().name).toBe(migration.name);
      expect(migration.name).toMatch(/^[A-Z][A-Za-z]+\d{13}$/);
    }
  });

  test('no two migrations in the repository share a timestamp, the backbone’s included', () => {
    const seen = new Map<string, string[]>();
    for (const migration of everyMigration)
      seen.set(timestampOf(migration), [...(seen.get(timestampOf(migration)) ?? []), migration.name]);
    expect([...seen.values()].filter((names) => names.length > 1)).toEqual([]);
  });

  test('each service, and the backbone, lists its migrations in timestamp order: the order they run in', () => {
    for (const [owner, migrations] of lists) {
      const timestamps = migrations.map(timestampOf);
      expect({ owner, timestamps }).toEqual({ owner, timestamps: [...timestamps].sort() });
    }
  });

  test('each migration file holds the one migration its file name dates, and every file is listed', () => {
    for (const [service, migrations] of serviceLists) {
      const folder = join(repoRoot, 'services', service, 'src/persistence/migrations');
      const files = readdirSync(folder).sort();
      for (const file of files) {
        const classes = [...readFileSync(join(folder, file), 'utf8').matchAll(/^export class (\w+)/gm)].map(
          (match) => match[1]!,
        );
        expect({ file, classes }).toEqual({
          file,
          classes: [expect.stringMatching(new RegExp(`${file.split('-')[0]}$`))],
        });
      }
      expect({ service, files: files.length }).toEqual({ service, files: migrations.length });
      expect(files.map((file) => file.split('-')[0])).toEqual(migrations.map(timestampOf).sort());
    }
  });
});
