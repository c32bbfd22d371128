import type { MigrationInterface, QueryRunner } from 'typeorm';
import { guardFinalRows, schemaOf } from '@gateway/persistence';

const STATUSES_BEFORE = ['open', 'settled', 'expired', 'underpaid', 'failed', 'superseded'];
const FINAL_BEFORE = ['settled', 'expired', 'underpaid', 'failed', 'superseded'];

/**
 * A request closes as `cancelled` when its payment is cancelled, and is then as final as any other closed request:
 * frozen by the database, so nothing settles it afterwards.
 */
export class CancelledRequests1732400120000 implements MigrationInterface {
  name = 'CancelledRequests1732400120000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.allowStatuses(queryRunner, [...STATUSES_BEFORE, 'cancelled']);
    await guardFinalRows(queryRunner, {
      table: 'payment_requests',
      finalStatuses: [...FINAL_BEFORE, 'cancelled'],
      changeableColumns: [],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'payment_requests',
      finalStatuses: FINAL_BEFORE,
      changeableColumns: [],
    });
    await this.allowStatuses(queryRunner, STATUSES_BEFORE);
  }

  private async allowStatuses(queryRunner: QueryRunner, statuses: string[]): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.payment_requests
        DROP CONSTRAINT payment_requests_status_check,
        ADD CONSTRAINT payment_requests_status_check
          CHECK (status IN (${statuses.map((status) => `'${status}'`).join(', ')}))`);
  }
}
