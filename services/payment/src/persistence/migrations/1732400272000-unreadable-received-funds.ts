import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Received funds may be `unreadable`: a Solana transaction naming the payment that the watcher cannot read yet, kept
 * on record (amount unknown) until it is read.
 */
export class UnreadableReceivedFunds1732400272000 implements MigrationInterface {
  name = 'UnreadableReceivedFunds1732400272000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.allowKinds(queryRunner, ['late', 'excess', 'partial', 'unmatched', 'unreadable']);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM ${schemaOf(queryRunner)}.received_funds WHERE kind = 'unreadable'`);
    await this.allowKinds(queryRunner, ['late', 'excess', 'partial', 'unmatched']);
  }

  private async allowKinds(queryRunner: QueryRunner, kinds: string[]): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD CONSTRAINT received_funds_kind_check
         CHECK (kind IN (${kinds.map((kind) => `'${kind}'`).join(', ')}))`,
    );
  }
}
