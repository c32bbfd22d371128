import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows } from '@gateway/persistence';

/**
 * A payment request that settled, expired, was underpaid, failed or was superseded keeps everything (its outcome,
 * what it asked for, its quote and window, what it received), whatever writes to it, and is never deleted.
 */
export class FinalRequestsFrozen1732400008000 implements MigrationInterface {
  name = 'FinalRequestsFrozen1732400008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await guardFinalRows(queryRunner, {
      table: 'payment_requests',
      finalStatuses: ['settled', 'expired', 'underpaid', 'failed', 'superseded'],
      changeableColumns: [],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropFinalRowGuard(queryRunner, 'payment_requests');
  }
}
