import type { QueryRunner } from 'typeorm';
import { schemaOf } from './schema';

export interface FinalRowGuard {
  /** Table in the service's schema. */
  table: string;
  /** Statuses a row never leaves. */
  finalStatuses: readonly string[];
  /**
   * Columns a row in a final status keeps as they are, `status` included. Columns not listed (timestamps, a version,
   * additive fields such as a refunded amount) may still change: adding an allowed column needs no change here.
   */
  frozenColumns: readonly string[];
}

/**
 * Makes the database itself refuse any change of a row in a final status, whatever code path or manual UPDATE tries
 * it: a BEFORE UPDATE trigger raises check_violation (SQLSTATE 23514, a permanent failure the broker never retries)
 * naming the column. Re-running it with another column list replaces the trigger.
 */
export async function guardFinalRows(queryRunner: QueryRunner, guard: FinalRowGuard): Promise<void> {
  const s = schemaOf(queryRunner);
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  // A misspelt column would compare null with null and never refuse anything: fail the migration instead.
  const existing: Array<{ column_name: string }> = await queryRunner.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
    [s.slice(1, -1), guard.table],
  );
  const unknown = guard.frozenColumns.filter((c) => !existing.some((e) => e.column_name === c));
  if (unknown.length > 0) throw new Error(`${guard.table} has no column ${unknown.join(', ')}`);
  await queryRunner.query(`
    CREATE OR REPLACE FUNCTION ${s}.refuse_change_of_final_row() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      frozen text;
      before jsonb := to_jsonb(OLD);
      after jsonb := to_jsonb(NEW);
    BEGIN
      FOREACH frozen IN ARRAY TG_ARGV LOOP
        IF after -> frozen IS DISTINCT FROM before -> frozen THEN
          RAISE EXCEPTION '%: a row with status % is final, % cannot change', TG_TABLE_NAME, OLD.status, frozen
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
      END LOOP;
      RETURN NEW;
    END $$`);
  const trigger = `${guard.table}_final_rows_frozen`;
  await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${s}.${guard.table}`);
  await queryRunner.query(`
    CREATE TRIGGER ${trigger} BEFORE UPDATE ON ${s}.${guard.table}
    FOR EACH ROW WHEN (OLD.status IN (${guard.finalStatuses.map(literal).join(', ')}))
    EXECUTE FUNCTION ${s}.refuse_change_of_final_row(${guard.frozenColumns.map(literal).join(', ')})`);
}

/** Undoes `guardFinalRows` for one table (migration `down`). */
export async function dropFinalRowGuard(queryRunner: QueryRunner, table: string): Promise<void> {
  await queryRunner.query(
    `DROP TRIGGER IF EXISTS ${table}_final_rows_frozen ON ${schemaOf(queryRunner)}.${table}`,
  );
}
