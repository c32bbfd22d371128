import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxInsertedAt, dropOutboxInsertedAt } from '@gateway/messaging';

/**
 * The outbox records when each row was inserted (`inserted_at`): the event log this service serves answers a row only
 * once no transaction that could still commit a lower position is open (docs/adr/0040-webhook-event-log-reconciliation.md).
 */
export class LedgerOutboxInsertedAt1764403200300 implements MigrationInterface {
  name = 'LedgerOutboxInsertedAt1764403200300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addOutboxInsertedAt(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxInsertedAt(queryRunner);
  }
}
