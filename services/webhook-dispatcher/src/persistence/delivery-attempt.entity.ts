import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'delivery_attempts' })
export class DeliveryAttemptEntity {
  @PrimaryColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text', name: 'delivery_id' })
  deliveryId!: string;

  @Column({ type: 'timestamptz', name: 'attempted_at' })
  attemptedAt!: Date;

  /** The replica that sent it (WORKER_ID). */
  @Column({ type: 'text', name: 'worker_id' })
  workerId!: string;

  @Column({ type: 'integer', name: 'status_code', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'integer', name: 'latency_ms' })
  latencyMs!: number;

  /** The first bytes of the receiver's answer. */
  @Column({ type: 'text', name: 'response_body', nullable: true })
  responseBody!: string | null;

  /** `<kind>: <message>` when no HTTP response came back (timeout, connection, ssrf_refused, ...). */
  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
