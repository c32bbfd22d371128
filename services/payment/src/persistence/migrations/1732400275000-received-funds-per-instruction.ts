import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Money kept aside is recorded once per transfer instruction, not once per transaction: one Solana transaction may
 * carry two transfers set aside for the same payment (two late ones, a late one and one in another token), each its
 * own money. `instruction` is the instruction's place in the transaction ("2", or "2.0" for an inner one); '' stands
 * for the whole transaction or transfer (a PIX, what a crypto window collected, a settlement's excess, a transaction not
 * read yet, and every record made before this), which no instruction can be.
 */
export class ReceivedFundsPerInstruction1732400275000 implements MigrationInterface {
  name = 'ReceivedFundsPerInstruction1732400275000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD COLUMN instruction text NOT NULL DEFAULT ''
         CONSTRAINT received_funds_instruction_check CHECK (instruction ~ '^([0-9]{1,4}(\\.[0-9]{1,4})?)?$')`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_once_per_transfer`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD CONSTRAINT received_funds_once_per_instruction
         UNIQUE (payment_id, rail_reference, instruction)`,
    );
    // One instruction naming several payments is kept by each of them (unmatched), but it is one sum of money: it
    // goes back to the payer through one of them only.
    await queryRunner.query(
      `CREATE UNIQUE INDEX received_funds_instruction_returned_once ON ${s}.received_funds
         (rail, rail_reference, instruction) WHERE returned_by IS NOT NULL AND instruction <> ''`,
    );
    // Money whose amount is not known yet (a transaction not read) cannot be returned: it is not known what to return.
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD CONSTRAINT received_funds_unreadable_held
         CHECK (kind <> 'unreadable' OR returned_by IS NULL)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_unreadable_held`);
    await queryRunner.query(`DROP INDEX ${s}.received_funds_instruction_returned_once`);
    // Several instructions of one transaction fold back into the first record, as before.
    await queryRunner.query(`
      DELETE FROM ${s}.received_funds later
       USING ${s}.received_funds earlier
       WHERE later.payment_id = earlier.payment_id
         AND later.rail_reference = earlier.rail_reference
         AND later.id > earlier.id`);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_once_per_instruction`,
    );
    await queryRunner.query(`ALTER TABLE ${s}.received_funds DROP COLUMN instruction`);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD CONSTRAINT received_funds_once_per_transfer
         UNIQUE (payment_id, rail_reference)`,
    );
  }
}
