import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PspProfileName } from '@gateway/contracts';

/**
 * A business's own PSP account (the direct model): its charges are opened there and its money stays there. The client
 * secret and the certificate are AES-256-GCM sealed (never stored in clear). A retired account (`retired_at`) is no
 * longer where new charges go, but stays for what its charges still need (devoluções of Pix paid into it).
 */
@Entity({ name: 'psp_accounts' })
export class PspAccountEntity {
  @PrimaryColumn({ type: 'text', name: 'account_id' })
  accountId!: string;

  @Column({ type: 'text', name: 'business_id' })
  businessId!: string;

  @Column({ type: 'text' })
  profile!: PspProfileName;

  @Column({ type: 'text', name: 'base_url' })
  baseUrl!: string;

  @Column({ type: 'text', name: 'oauth_token_url' })
  oauthTokenUrl!: string;

  @Column({ type: 'text', name: 'client_id' })
  clientId!: string;

  @Column({ type: 'text', name: 'client_secret_sealed', nullable: true })
  clientSecretSealed!: string | null;

  @Column({ type: 'text', name: 'certificate_sealed', nullable: true })
  certificateSealed!: string | null;

  @Column({ type: 'text', name: 'certificate_passphrase_sealed', nullable: true })
  certificatePassphraseSealed!: string | null;

  @Column({ type: 'text', name: 'pix_key' })
  pixKey!: string;

  @Column({ type: 'text', name: 'developer_app_key', nullable: true })
  developerAppKey!: string | null;

  @Column({ type: 'text', name: 'account_number', nullable: true })
  accountNumber!: string | null;

  /** Bumped by every change: a client built from an older revision is replaced. */
  @Column({ type: 'integer' })
  revision!: number;

  @Column({ type: 'timestamptz', name: 'retired_at', nullable: true })
  retiredAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
