import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Subscriptions by Pix Automático (docs/adr/0048-due-date-charges-and-subscriptions.md, sections 2 to 4). The database
 * holds their rules: amounts in centavos (a fixed amount, or a varying one with an optional minimum, never both), an
 * `end_date` not before `start_date`, the journey's account only for `push`, who cancelled and why only when cancelled
 * (and an end time once ended), and the moves `pending_authorization` -> `active` -> `cancelled` | `expired` (or
 * `pending_authorization` -> `cancelled` | `expired`), nothing out of an end. Each cycle is a payment with
 * `subscription_id` and `cycle`, unique per pair: a cycle is opened once whatever races.
 */
export class Subscriptions1764403200910 implements MigrationInterface {
  name = 'Subscriptions1764403200910';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.subscriptions (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        business_name text NOT NULL,
        customer_id text NOT NULL,
        debtor_name text NOT NULL,
        debtor_document text NOT NULL,
        status text NOT NULL
          CHECK (status IN ('pending_authorization', 'active', 'cancelled', 'expired')),
        amount_centavos bigint CHECK (amount_centavos > 0),
        minimum_amount_centavos bigint CHECK (minimum_amount_centavos > 0),
        interval text NOT NULL CHECK (interval IN ('weekly', 'monthly', 'quarterly', 'semiannual', 'yearly')),
        start_date date NOT NULL,
        end_date date CHECK (end_date >= start_date),
        description text CHECK (char_length(description) <= 140),
        retry_policy text NOT NULL CHECK (retry_policy IN ('none', 'three_in_seven_days')),
        journey text NOT NULL CHECK (journey IN ('push', 'qr', 'qr_with_first_payment')),
        payer_account jsonb,
        metadata text,
        recurrence_id text NOT NULL,
        authorization_instructions jsonb,
        first_payment_id text,
        next_cycle integer CHECK (next_cycle >= 1),
        next_due_date date,
        -- A varying subscription's next cycle amount, as the merchant set it (null: its minimum).
        next_cycle_amount_centavos bigint,
        -- The sandbox's own clock (a São Paulo day); null in production, where today is the wall clock's.
        clock_date date,
        -- Sandbox: the day an advance asked for, which the clock is moving to (step by step, in the background); and
        -- until when one runner holds that move (a lease: a replica that died lets another take it over).
        clock_target date CHECK (clock_target IS NULL OR clock_date IS NOT NULL),
        clock_lease_until timestamptz,
        -- Which runner holds that lease (a random token per runner): only its holder renews or lets it go.
        clock_lease_owner text,
        -- A cycle the adapter refused to open (it may pass later: a PSP down, a fee rule missing) is tried again no
        -- sooner than this, each failure waiting longer: one subscription that cannot open never holds up the others.
        cycle_open_failures integer NOT NULL DEFAULT 0 CHECK (cycle_open_failures >= 0),
        cycle_open_retry_at timestamptz,
        -- Sandbox: the next cycle opened is to fail its debit (simulate fail_next_cycle), until pay_next_cycle.
        fail_next_cycle boolean NOT NULL DEFAULT false,
        -- Sandbox: when the payer's bank was last asked to answer the authorization (simulate authorize or reject): a
        -- clock move waits a while at a send day for that answer, which arrives as an event.
        payer_answer_asked_at timestamptz,
        cancelled_by text CHECK (cancelled_by IN ('merchant', 'payer', 'psp')),
        cancellation_reason text CHECK (cancellation_reason IN ('requested', 'authorization_rejected')),
        psp_reason_code text,
        ended_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT subscriptions_one_amount CHECK (
          amount_centavos IS NULL OR minimum_amount_centavos IS NULL),
        CONSTRAINT subscriptions_account_for_push CHECK ((journey = 'push') = (payer_account IS NOT NULL)),
        CONSTRAINT subscriptions_first_payment_for_journey_3 CHECK (
          (journey = 'qr_with_first_payment') = (first_payment_id IS NOT NULL)),
        CONSTRAINT subscriptions_first_payment_fixed CHECK (
          journey <> 'qr_with_first_payment' OR amount_centavos IS NOT NULL),
        CONSTRAINT subscriptions_cancellation_when_cancelled CHECK (
          (status = 'cancelled') = (cancelled_by IS NOT NULL AND cancellation_reason IS NOT NULL)),
        CONSTRAINT subscriptions_ended_at CHECK ((status IN ('cancelled', 'expired')) = (ended_at IS NOT NULL)),
        CONSTRAINT subscriptions_next_cycle_together CHECK ((next_cycle IS NULL) = (next_due_date IS NULL)),
        CONSTRAINT subscriptions_next_cycle_amount_varying CHECK (next_cycle_amount_centavos IS NULL OR (
          minimum_amount_centavos IS NOT NULL AND next_cycle_amount_centavos >= minimum_amount_centavos))
      )`);
    await queryRunner.query(
      `CREATE INDEX subscriptions_page ON ${s}.subscriptions (business_id, created_at DESC, id DESC)`,
    );
    // The scheduler's pass: active subscriptions with a cycle to open, by due date (those backing off left out).
    await queryRunner.query(
      `CREATE INDEX subscriptions_due ON ${s}.subscriptions (next_due_date) WHERE status = 'active'`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_subscription_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status <> 'pending_authorization' THEN
            RAISE EXCEPTION 'subscriptions: a subscription starts pending_authorization, not %', NEW.status
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
             (OLD.status = 'pending_authorization' AND NEW.status IN ('active', 'cancelled', 'expired'))
             OR (OLD.status = 'active' AND NEW.status IN ('cancelled', 'expired'))) THEN
          RAISE EXCEPTION 'subscriptions: no move from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF OLD.status IN ('cancelled', 'expired') AND
           (to_jsonb(NEW) - 'updated_at' - 'clock_date' - 'clock_target' - 'clock_lease_until' - 'clock_lease_owner')
             IS DISTINCT FROM
           (to_jsonb(OLD) - 'updated_at' - 'clock_date' - 'clock_target' - 'clock_lease_until' - 'clock_lease_owner') THEN
          RAISE EXCEPTION 'subscriptions: an ended subscription does not change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF (NEW.id, NEW.business_id, NEW.customer_id, NEW.amount_centavos, NEW.minimum_amount_centavos, NEW.interval,
            NEW.start_date, NEW.end_date, NEW.retry_policy, NEW.journey, NEW.recurrence_id, NEW.created_at)
           IS DISTINCT FROM
           (OLD.id, OLD.business_id, OLD.customer_id, OLD.amount_centavos, OLD.minimum_amount_centavos, OLD.interval,
            OLD.start_date, OLD.end_date, OLD.retry_policy, OLD.journey, OLD.recurrence_id, OLD.created_at) THEN
          RAISE EXCEPTION 'subscriptions: the terms of a subscription do not change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF NEW.clock_date < OLD.clock_date OR (OLD.clock_date IS NULL) <> (NEW.clock_date IS NULL) THEN
          RAISE EXCEPTION 'subscriptions: a subscription''s clock only moves forward'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER subscriptions_moves BEFORE INSERT OR UPDATE ON ${s}.subscriptions
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_subscription_move()`);
    // A subscription is never deleted: its cycles' payments name it.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_subscription_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'subscriptions: a subscription is never deleted'
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER subscriptions_kept BEFORE DELETE ON ${s}.subscriptions
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_subscription_delete()`);
    await queryRunner.query(`
      ALTER TABLE ${s}.payments
        ADD COLUMN subscription_id text REFERENCES ${s}.subscriptions (id),
        ADD COLUMN cycle integer,
        ADD CONSTRAINT payments_cycle_of_subscription CHECK (
          (subscription_id IS NULL) = (cycle IS NULL) AND (cycle IS NULL OR (cycle >= 1 AND method = 'pix'))),
        ADD CONSTRAINT payments_one_per_cycle UNIQUE (subscription_id, cycle)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.payments DROP COLUMN cycle, DROP COLUMN subscription_id`);
    await queryRunner.query(`DROP TABLE ${s}.subscriptions`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_subscription_move()`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_subscription_delete()`);
  }
}
