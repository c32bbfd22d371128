import type { DataSource } from 'typeorm';
import { openSecret } from '@gateway/persistence';
import type { Logger } from '@gateway/observability';
import { PSP_PROFILES } from '../../domain/psp-profiles';
import { PspAccountEntity } from '../../persistence';
import type { ChargeKind } from '../../persistence/charge.entity';
import {
  accountIdOfCharge,
  accountIdOfReceivedPix,
  routeOfCharge,
} from '../../persistence/psp-account-store';
import { ApiPixClient, type DevolucaoInput } from './api-pix-client';
import type { Cob } from './cob';
import type { PixDevolucao } from './devolucao';
import type { ListedPix } from './pix-lists';

export interface PspAccountsDeps {
  dataSource: DataSource;
  /** The platform's own account (the PSP_* settings): every charge of a business without its own account. */
  platform: ApiPixClient;
  /** PSP_ACCOUNT_SEALING_KEY, to open the sealed secret and certificate when a client is built. */
  sealingKey: Buffer;
  timeoutMs: number;
  maxRetries: number;
  logger: Logger;
}

/** Where a new charge of a business is opened: its own account, or the platform's (`accountId` null). */
export interface ChargeAccount {
  accountId: string | null;
  /** The receiving key of the business's own account; null: the platform's PIX_KEY. */
  pixKey: string | null;
  client: ApiPixClient;
}

/**
 * The PSP accounts charges live at: the platform's, and each business's own (the direct model). One client per
 * account is kept, built from its sealed credentials on first use and replaced when the account changes (a new
 * revision). The secrets are opened only into the client's configuration, never logged nor put in an error.
 *
 * It also answers as one PSP for the calls about an existing charge: each is sent to the account its charge was opened
 * at (by txid, or by the endToEndId of a Pix received on it), so a read, an amount change, a removal or a devolução
 * never reaches another account.
 */
export class PspAccounts {
  private readonly clients = new Map<string, { revision: number; client: ApiPixClient }>();

  constructor(private readonly deps: PspAccountsDeps) {}

  get platform(): ApiPixClient {
    return this.deps.platform;
  }

  /** The account a new charge of the business is opened at, given its account in force as read (null: none). */
  chargeAccountOf(account: PspAccountEntity | null): ChargeAccount {
    if (!account) return { accountId: null, pixKey: null, client: this.deps.platform };
    return { accountId: account.accountId, pixKey: account.pixKey, client: this.clientOf(account) };
  }

  /** The client of an account (null: the platform's); a retired account still answers for its charges. */
  async forAccount(accountId: string | null): Promise<ApiPixClient> {
    if (accountId === null) return this.deps.platform;
    const account = await this.deps.dataSource.manager.findOneByOrFail(PspAccountEntity, { accountId });
    return this.clientOf(account);
  }

  /** The client of the account the charge was opened at. */
  async forTxid(txid: string): Promise<ApiPixClient> {
    return this.forAccount(await accountIdOfCharge(this.deps.dataSource.manager, txid));
  }

  /** The client of the account a received Pix was paid into (the platform's for a Pix of no charge of ours). */
  async forEndToEndId(endToEndId: string): Promise<ApiPixClient> {
    return this.forAccount(await accountIdOfReceivedPix(this.deps.dataSource.manager, endToEndId));
  }

  /** The client of the charge's account, and what the charge is (`cob`, `cobv`, `cobr`: each read at its own path). */
  private async routeOf(txid: string): Promise<{ client: ApiPixClient; kind: ChargeKind }> {
    const route = await routeOfCharge(this.deps.dataSource.manager, txid);
    return { client: await this.forAccount(route.accountId), kind: route.kind };
  }

  /** The charge as the PSP has it now: a `cob`, a `cobv` for a charge with a due date, a `cobr` seen as a charge. */
  async getCharge(txid: string): Promise<Cob> {
    const { client, kind } = await this.routeOf(txid);
    if (kind === 'cobr') return client.getCycleAsCharge(txid);
    return kind === 'cobv' ? client.getDueCharge(txid) : client.getCharge(txid);
  }

  async createLocationFor(txid: string): ReturnType<ApiPixClient['createLocation']> {
    return (await this.forTxid(txid)).createLocation();
  }

  async updateChargeAmount(txid: string, valorCentavos: number, locId?: number): Promise<Cob> {
    return (await this.forTxid(txid)).updateChargeAmount(txid, valorCentavos, locId);
  }

  async letPayerChooseAmount(txid: string, valorCentavos: number): Promise<void> {
    return (await this.forTxid(txid)).letPayerChooseAmount(txid, valorCentavos);
  }

  /** Withdraws the charge: a cob or cobv removed, a cycle's cobr cancelled (refused on the day of its debit). */
  async removeCharge(txid: string): Promise<Cob> {
    const { client, kind } = await this.routeOf(txid);
    if (kind === 'cobr') return client.cancelCycle(txid);
    return kind === 'cobv' ? client.removeDueCharge(txid) : client.removeCharge(txid);
  }

  /** Sandbox: a payer pays the charge (a cobv: what is due on the simulator's date, `valorCentavos` not used). */
  async sandboxPay(txid: string, valorCentavos: number | null, paidOn: string | null = null): Promise<void> {
    const { client, kind } = await this.routeOf(txid);
    return kind === 'cobv' ? client.sandboxPayDue(txid, paidOn) : client.sandboxPay(txid, valorCentavos);
  }

  async sandboxRemove(txid: string): Promise<void> {
    const { client, kind } = await this.routeOf(txid);
    return kind === 'cobv' ? client.sandboxRemoveDue(txid) : client.sandboxRemove(txid);
  }

  async requestDevolucao(endToEndId: string, id: string, input: DevolucaoInput): Promise<PixDevolucao> {
    return (await this.forEndToEndId(endToEndId)).requestDevolucao(endToEndId, id, input);
  }

  async getDevolucao(endToEndId: string, id: string): Promise<PixDevolucao> {
    return (await this.forEndToEndId(endToEndId)).getDevolucao(endToEndId, id);
  }

  async getReceivedPix(endToEndId: string): Promise<ListedPix> {
    return (await this.forEndToEndId(endToEndId)).getReceivedPix(endToEndId);
  }

  /** Sandbox only: the PSP raises a MED on a Pix, at the account the Pix was paid into. */
  async sandboxRaiseMed(
    ...args: Parameters<ApiPixClient['sandboxRaiseMed']>
  ): ReturnType<ApiPixClient['sandboxRaiseMed']> {
    return (await this.forEndToEndId(args[0])).sandboxRaiseMed(...args);
  }

  /** Sandbox only: the PSP ends a MED, at the account the Pix was paid into. */
  async sandboxEndMed(
    ...args: Parameters<ApiPixClient['sandboxEndMed']>
  ): ReturnType<ApiPixClient['sandboxEndMed']> {
    return (await this.forEndToEndId(args[0])).sandboxEndMed(...args);
  }

  /** The defence of a MED, at the account the Pix was paid into: its profile decides whether it takes one. */
  async defendMed(...args: Parameters<ApiPixClient['defendMed']>): ReturnType<ApiPixClient['defendMed']> {
    return (await this.forEndToEndId(args[0])).defendMed(...args);
  }

  /**
   * The platform account's Pix received in a period, every page. The lists are read at the platform's account only: a
   * business's own account is followed charge by charge (its callbacks, and re-reads of its open charges).
   */
  listReceivedPix(inicio: Date, fim: Date): Promise<ListedPix[]> {
    return this.deps.platform.listReceivedPix(inicio, fim);
  }

  /** One page of the platform account's Pix received in a period (see `listReceivedPix`). */
  receivedPixPage(inicio: Date, fim: Date, page: number): ReturnType<ApiPixClient['receivedPixPage']> {
    return this.deps.platform.receivedPixPage(inicio, fim, page);
  }

  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map(({ client }) => client.close()));
  }

  private clientOf(account: PspAccountEntity): ApiPixClient {
    const cached = this.clients.get(account.accountId);
    if (cached?.revision === account.revision) return cached.client;
    const client = this.build(account);
    this.clients.set(account.accountId, { revision: account.revision, client });
    // The replaced client's calls in flight finish; it takes no new ones.
    if (cached) void cached.client.close().catch(() => undefined);
    return client;
  }

  private build(account: PspAccountEntity): ApiPixClient {
    const open = (sealed: string | null) =>
      sealed === null ? null : openSecret(sealed, this.deps.sealingKey);
    const certificate = open(account.certificateSealed);
    const passphrase = open(account.certificatePassphraseSealed);
    return new ApiPixClient(
      {
        baseUrl: account.baseUrl,
        // The account's base URL names where API Pix is mounted, its version path included.
        pathPrefix: '',
        oauthTokenUrl: account.oauthTokenUrl,
        clientId: account.clientId,
        clientSecret: open(account.clientSecretSealed) ?? '',
        ...(certificate === null
          ? {}
          : {
              mTLS: {
                pfx: Buffer.from(certificate, 'base64'),
                ...(passphrase === null ? {} : { passphrase }),
              },
            }),
        profile: PSP_PROFILES[account.profile],
        profileSettings: {
          ...(account.developerAppKey === null ? {} : { developerAppKey: account.developerAppKey }),
          ...(account.accountNumber === null ? {} : { accountNumber: account.accountNumber }),
        },
        timeoutMs: this.deps.timeoutMs,
        maxRetries: this.deps.maxRetries,
      },
      { logger: this.deps.logger },
    );
  }
}

/** The calls about an existing charge: one client answers them, and so do the accounts (each sent to its charge's). */
export type ChargePsp = Pick<
  ApiPixClient,
  | 'getCharge'
  | 'updateChargeAmount'
  | 'letPayerChooseAmount'
  | 'removeCharge'
  | 'sandboxRemove'
  | 'requestDevolucao'
  | 'getDevolucao'
  | 'getReceivedPix'
  | 'sandboxRaiseMed'
  | 'sandboxEndMed'
  | 'listReceivedPix'
  | 'receivedPixPage'
> & {
  /** The sandbox payer pays the charge; a due-date one what is due today, or on `paidOn`. */
  sandboxPay(txid: string, valorCentavos: number | null, paidOn?: string | null): Promise<void>;
};
