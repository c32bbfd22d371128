import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A business as the dashboard knows it: its id at the gateway, and the API key the dashboard acts with on its behalf,
 * sealed (AES-256-GCM, DASHBOARD_SEAL_KEY). The key is never shown, never logged.
 */
@Entity({ name: 'businesses' })
export class BusinessEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  environment!: 'sandbox' | 'production';

  /** The IANA zone its dates are shown in. */
  @Column({ type: 'text', name: 'time_zone' })
  timeZone!: string;

  @Column({ type: 'text', name: 'sealed_api_key' })
  sealedApiKey!: string;

  /** The prefix of that key, so the keys page can tell it apart (and refuse to revoke it). */
  @Column({ type: 'text', name: 'api_key_prefix' })
  apiKeyPrefix!: string;

  /**
   * Whether the gateway knows that key as the dashboard's own (its own rate limit): set at sign-up; a key given
   * before keys had a purpose is marked through the operator API when the dashboard starts (markDashboardKeys).
   */
  @Column({ type: 'boolean', name: 'api_key_marked', default: false })
  apiKeyMarked!: boolean;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
