import type { QueryRunner } from 'typeorm';
import { schemaOf } from './schema';

export interface FinalRowGuard {
  /** Table in the service's schema. */
  table: string;
  /** Statuses a row never leaves. */
  finalStatuses: readonly string[];
  /**
   * Columns a row in a final status may still change: a timestamp, a version, a claim that says nothing about its
   * outcome. Every other column is frozen, `status` included, and so is any column added later unless the migration
   * adding it allows it (`allowChangeOnFinalRows`): forgetting a column can only freeze it, never open it.
   */
  changeableColumns: readonly string[];
}

const triggerOf = (table: string) => `${table}_final_rows_frozen`;

async function requireColumns(queryRunner: QueryRunner, table: string, columns: readonly string[]) {
  const existing: Array<{ column_name: string }> = await queryRunner.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
    [schemaOf(queryRunner).slice(1, -1), table],
  );
  const unknown = columns.filter((c) => !existing.some((e) => e.column_name === c));
  if (unknown.length > 0) throw new Error(`${table} has no column ${unknown.join(', ')}`);
}

/**
 * Makes the database itself refuse any change of a row in a final status, and its deletion, whatever code path or
 * manual statement tries it: a BEFORE UPDATE OR DELETE trigger compares the whole row, less the changeable columns,
 * and raises check_violation (SQLSTATE 23514, a permanent failure the broker never retries) naming what changed.
 * Re-running it replaces the trigger.
 */
export async function guardFinalRows(queryRunner: QueryRunner, guard: FinalRowGuard): Promise<void> {
  const s = schemaOf(queryRunner);
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  await requireColumns(queryRunner, guard.table, guard.changeableColumns);
  await queryRunner.query(`
    CREATE OR REPLACE FUNCTION ${s}.refuse_change_of_final_row() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      -- TG_ARGV[0]: the final statuses (kept for allowChangeOnFinalRows); TG_ARGV[1]: the changeable columns.
      changeable text[] := string_to_array(TG_ARGV[1], ',');
      before jsonb := to_jsonb(OLD) - changeable;
      after jsonb;
      changed text;
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION '%: a row with status % is final and cannot be deleted', TG_TABLE_NAME, OLD.status
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END IF;
      after := to_jsonb(NEW) - changeable;
      IF after IS DISTINCT FROM before THEN
        SELECT string_agg(key, ', ' ORDER BY key) INTO changed
          FROM jsonb_object_keys(after || before) AS key
          WHERE after -> key IS DISTINCT FROM before -> key;
        RAISE EXCEPTION '%: a row with status % is final, % cannot change', TG_TABLE_NAME, OLD.status, changed
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END IF;
      RETURN NEW;
    END $$`);
  const trigger = triggerOf(guard.table);
  await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${s}.${guard.table}`);
  await queryRunner.query(`
    CREATE TRIGGER ${trigger} BEFORE UPDATE OR DELETE ON ${s}.${guard.table}
    FOR EACH ROW WHEN (OLD.status IN (${guard.finalStatuses.map(literal).join(', ')}))
    EXECUTE FUNCTION ${s}.refuse_change_of_final_row(
      ${literal(guard.finalStatuses.join(','))}, ${literal(guard.changeableColumns.join(','))})`);
}

/**
 * For a migration adding columns a final row may still change (an additive field, a claim): adds them to the
 * table's guard, which keeps its final statuses and the columns it already allowed. (Its `down` drops the columns; the
 * guard ignores a name that is no column.)
 */
export async function allowChangeOnFinalRows(
  queryRunner: QueryRunner,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const [guarded]: Array<{ tgargs: Buffer }> = await queryRunner.query(
    `SELECT tgargs FROM pg_trigger WHERE tgname = $1 AND tgrelid = $2::regclass`,
    [triggerOf(table), `${schemaOf(queryRunner)}.${table}`],
  );
  if (!guarded) throw new Error(`${table} has no final-row guard`);
  // pg_trigger keeps the arguments NUL-terminated, one after the other.
  const [statuses = '', changeable = ''] = guarded.tgargs.toString('utf8').split('\0');
  const split = (csv: string) => csv.split(',').filter((item) => item !== '');
  await guardFinalRows(queryRunner, {
    table,
    finalStatuses: split(statuses),
    changeableColumns: [...new Set([...split(changeable), ...columns])],
  });
}

/** Undoes `guardFinalRows` for one table (migration `down`). */
export async function dropFinalRowGuard(queryRunner: QueryRunner, table: string): Promise<void> {
  await queryRunner.query(`DROP TRIGGER IF EXISTS ${triggerOf(table)} ON ${schemaOf(queryRunner)}.${table}`);
}
