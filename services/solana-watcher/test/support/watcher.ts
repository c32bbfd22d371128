import { TOKEN_2022_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  changeCryptoRequestAmount,
  cryptoRequestClosed,
  cryptoRequestSettled,
  newPublicId,
  openCryptoRequest,
  simulateCryptoOutcome,
  type CryptoRequest,
  type CryptoRequestClosed,
  type CryptoRequestSettled,
  type Envelope,
  type OpenCryptoRequest,
  type SimulateCryptoOutcome,
} from '@gateway/contracts';
import type { Broker, MessageContext } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { metricsRegistry } from '@gateway/observability';
import {
  serviceTestBed,
  waitFor,
  waitForParkedMessages,
  type ParkedMessage,
  type ServiceTestBed,
  startHttpProxy,
  type HttpProxy,
} from '@gateway/testkit';
import { loadSolanaWatcherConfig, type SolanaWatcherConfig } from '../../src/config';
import { encodeBase58 } from '../../src/domain/base58';
import { startSolanaWatcher } from '../../src/main';
import {
  payTransferRequest,
  signTransferRequest,
  startLocalnet,
  type Localnet,
  type RpcModes,
  type SignedTransfer,
} from './localnet';

/** The advisory lock a detection pass holds (one replica scans at a time). */
const SCAN_LOCK = 'solana_watcher:scan';

export interface HarnessOptions {
  /** The local chain's real-node behaviours from the start (commitment lags, rate limits). */
  modes?: Partial<RpcModes>;
  /** Watcher variables over the harness's own. */
  env?: Record<string, string>;
  /** Runs on the local chain before the watcher starts (e.g. creates a mint the watcher is configured with). */
  seed?: (localnet: Localnet) => void;
  /** The receiving wallet's key pair (a fresh one unless given), e.g. one a test's Vault stand-in holds. */
  receivingWallet?: Keypair;
}

/** The watcher's EURC made a Token-2022 mint on the local chain, the payer funded with it and the wallet's account made. */
export function withToken2022Eurc(mint: PublicKey): HarnessOptions {
  return {
    env: { MINT_EURC: mint.toBase58() },
    seed: (localnet) => {
      localnet.seeder.createMint(mint, localnet.mintAuthority.publicKey, 6, TOKEN_2022_PROGRAM_ID);
      localnet.seeder.mintTo(localnet.payer.publicKey, mint, 1_000_000_000_000n);
      localnet.seeder.mintTo(localnet.receivingWallet, mint, 0n);
    },
  };
}

export interface RequestRow {
  reference: string;
  payment_id: string;
  status: string;
  amount_base_units: string;
  received_base_units: string;
  quote_rate: string;
  quote_source: string;
  quote_at: Date;
  expires_at: Date;
  settled_signature: string | null;
}

export interface TransferRow {
  signature: string;
  reference: string;
  amount: string;
  mint: string;
  applied_to: string;
}

/** The `crypto.request.closed.v1` a request ends with when its window closes unpaid. */
export const closureOf = (
  request: { payment_id: string; reference: string },
  reason: CryptoRequestClosed['reason'],
  receivedBaseUnits: string,
): CryptoRequestClosed => ({
  payment_id: request.payment_id,
  reference: request.reference,
  reason,
  received_base_units: receivedBaseUnits,
});

/**
 * A watcher started in-process against its own database, broker prefix and local chain (reached through a flaky
 * proxy that passes everything through until told otherwise), with a client broker that sends it commands and
 * collects the events it publishes.
 */
export class WatcherHarness {
  readonly events: Envelope[] = [];
  localnet!: Localnet;
  proxy!: HttpProxy;
  config!: SolanaWatcherConfig;
  /** The test bed the watcher runs on; `bed.request` sends it a command and answers the reply. */
  bed!: ServiceTestBed<ServiceRuntime>;

  get service(): ServiceRuntime {
    return this.bed.service;
  }

  get client(): Broker {
    return this.bed.client;
  }

  static async start(options: HarnessOptions = {}): Promise<WatcherHarness> {
    const harness = new WatcherHarness();
    await harness.start(options);
    return harness;
  }

  /** A harness started before the enclosing describe's tests and closed after them. */
  static forTheseTests(options: HarnessOptions = {}): WatcherHarness {
    const harness = new WatcherHarness();
    beforeAll(() => harness.start(options));
    afterAll(() => harness.close());
    return harness;
  }

  private async start(options: HarnessOptions): Promise<void> {
    const payer = Keypair.generate();
    const receivingWallet = options.receivingWallet ?? Keypair.generate();
    this.bed = await serviceTestBed('solana-watcher', async (env, cleanup) => {
      this.localnet = await startLocalnet({
        port: 0,
        payer,
        receivingWallet: receivingWallet.publicKey,
        modes: options.modes,
      });
      options.seed?.(this.localnet);
      cleanup.afterStop(() => this.localnet.close());
      this.proxy = await startHttpProxy(this.localnet.url);
      cleanup.afterStop(() => this.proxy.close());
      this.config = loadSolanaWatcherConfig({
        ...env.config,
        SOLANA_RPC_URL: this.proxy.url,
        RECEIVING_WALLET: this.localnet.receivingWallet.toBase58(),
        SANDBOX_PAYER_SECRET_KEY: encodeBase58(payer.secretKey),
        REFUND_SIGNER_SECRET_KEY: encodeBase58(receivingWallet.secretKey),
        FIXED_RATES: 'usdc=0.18,usdt=0.18345671,eurc=0.16',
        POLL_INTERVAL_MS: '100',
        SOLANA_RPC_REQUESTS_PER_SECOND: '200',
        // Every page with transfers takes its own arrival quote: a test sees the quote of its own transfer.
        ARRIVAL_QUOTE_MAX_AGE_MS: '0',
        ...options.env,
      });
      return startSolanaWatcher(this.config);
    });
    const collect = async (_payload: unknown, context: MessageContext) => {
      this.events.push(context.envelope);
    };
    // A queue under a service name the watcher does not use, bound to the watcher's events only.
    await this.client
      .handlers('webhook-dispatcher')
      .handle(cryptoRequestSettled, collect)
      .handle(cryptoRequestClosed, collect)
      .consume();
  }

  close(): Promise<void> {
    return this.bed.close();
  }

  /** Stops the watcher process and starts a new one on the same database, broker prefix and chain. */
  async restart(between: () => Promise<void> = async () => undefined): Promise<void> {
    await this.bed.service.stop();
    await between();
    this.bed.service = await startSolanaWatcher(this.config);
  }

  /** Waits for the commands the watcher parked, and takes them. */
  parkedCommands(): Promise<ParkedMessage[]> {
    return waitForParkedMessages(
      `${this.config.AMQP_PREFIX}solana-watcher.commands.parking`,
      'the parked command',
    );
  }

  /** Waits for the events the watcher parked, and takes them. */
  parkedEvents(): Promise<ParkedMessage[]> {
    return waitForParkedMessages(
      `${this.config.AMQP_PREFIX}solana-watcher.events.parking`,
      'the parked event',
    );
  }

  /** Whether the watcher has handled a message through its inbox (consumer = the message's name). */
  async handled(consumer: string, messageId: string): Promise<boolean> {
    const rows: unknown[] = await this.service.dataSource.query(
      'SELECT 1 FROM inbox WHERE consumer = $1 AND message_id = $2 AND result IS NOT NULL',
      [consumer, messageId],
    );
    return rows.length > 0;
  }

  /** How many detection passes the watchers of this process have completed (those that held the scan lock). */
  async scanPasses(): Promise<number> {
    const metric = await metricsRegistry.getSingleMetric('solana_watcher_scans_total')?.get();
    return metric?.values.find((value) => value.labels.outcome === 'scanned')?.value ?? 0;
  }

  /**
   * Waits for two more completed detection passes: passes never overlap (one scan lock), so the second began after
   * this call. What any pass would do about the chain and the clock as they are now has then been done and committed
   * (a pass reads at most two seconds of the pace of the wallet's history: a larger backlog takes more passes).
   */
  async nextFullScan(): Promise<void> {
    const before = await this.scanPasses();
    await waitFor(async () => (await this.scanPasses()) >= before + 2, { what: 'a detection pass from now' });
  }

  /**
   * Forgets where the scans got to, under the scan lock (so no pass in progress writes its cursor back), and waits
   * until a pass has scanned the whole chain again from scratch.
   */
  async rescanFromScratch(): Promise<void> {
    const runner = this.service.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [SCAN_LOCK]);
      await runner.query('DELETE FROM scan_cursors');
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [SCAN_LOCK]);
    } finally {
      await runner.release();
    }
    await this.nextFullScan();
  }

  /** How many `name` events the watcher has emitted about a payment (its outbox: published or not yet). */
  async emitted(name: string, paymentId: string): Promise<number> {
    const rows: unknown[] = await this.service.dataSource.query(
      `SELECT 1 FROM outbox WHERE name = $1 AND envelope->'payload'->>'payment_id' = $2`,
      [name, paymentId],
    );
    return rows.length;
  }

  /** What `owner` holds of a token on the local chain, in base units (0 without a token account). */
  async tokenBalance(owner: PublicKey, mint: string = this.localnet.mints.USDC): Promise<bigint> {
    const account = this.localnet.ledger.tokenBalance(
      getAssociatedTokenAddressSync(new PublicKey(mint), owner, true).toBase58(),
    );
    return BigInt(account?.amount ?? '0');
  }

  /** Opens a request and pays it in full from the localnet's payer; resolves once the request settled. */
  async paidRequest(
    overrides: Partial<OpenCryptoRequest> = {},
  ): Promise<CryptoRequest & { payment_id: string; signature: string }> {
    const request = await this.open(overrides);
    const signature = await this.pay(request.reference, BigInt(request.amount_base_units));
    await this.waitForEvent(request.payment_id, cryptoRequestSettled.name);
    return { ...request, signature };
  }

  openCommand(overrides: Partial<OpenCryptoRequest> = {}): OpenCryptoRequest {
    return {
      payment_id: newPublicId('pay'),
      business_name: 'Padaria Pão Quente',
      amount_centavos: 10_000,
      token: 'usdc',
      ...overrides,
    };
  }

  async open(overrides: Partial<OpenCryptoRequest> = {}): Promise<CryptoRequest & { payment_id: string }> {
    const command = this.openCommand(overrides);
    const reply = await this.bed.request(openCryptoRequest, command);
    if (!reply.ok) throw new Error(`open refused: ${reply.error.code} ${reply.error.message}`);
    return { ...reply.result, payment_id: command.payment_id };
  }

  /** Pays a reference from the localnet's funded payer, as a buyer's wallet would; resolves once it landed. */
  pay(reference: string, amountBaseUnits: bigint, mint: string = this.localnet.mints.USDC): Promise<string> {
    return payTransferRequest(this.localnet.url, this.localnet.payer, {
      recipient: this.localnet.receivingWallet,
      amountBaseUnits,
      mint: new PublicKey(mint),
      reference: new PublicKey(reference),
    });
  }

  /**
   * What the sandbox's test wallet would have kept for a `paid` simulation (by its message id) and died before sending:
   * a transaction paying the reference, signed and never sent.
   */
  async keptUnsent(messageId: string, reference: string, amountBaseUnits: bigint): Promise<SignedTransfer> {
    const signed = await signTransferRequest(this.localnet.url, this.localnet.payer, {
      recipient: this.localnet.receivingWallet,
      amountBaseUnits,
      mint: new PublicKey(this.localnet.mints.USDC),
      reference: new PublicKey(reference),
    });
    await this.service.dataSource.query(
      `INSERT INTO sandbox_wallet_payments (message_id, signature, signed_transaction, last_valid_block_height)
       VALUES ($1, $2, $3, $4)`,
      [messageId, signed.signature, signed.transaction, signed.lastValidBlockHeight],
    );
    return signed;
  }

  eventsFor(paymentId: string): Envelope[] {
    return this.events.filter((event) => (event.payload as { payment_id?: string }).payment_id === paymentId);
  }

  /** Waits for the first event of `name` about the payment. */
  waitForEvent<P>(paymentId: string, name: string, timeoutMs = 10_000): Promise<Envelope<P>> {
    return waitFor(() => this.eventsFor(paymentId).find((event) => event.name === name) as Envelope<P>, {
      timeoutMs,
      what: `${name} for ${paymentId}`,
    });
  }

  /** Waits for the payment's request to settle: its `crypto.request.settled.v1`. */
  settled(paymentId: string, timeoutMs?: number): Promise<Envelope<CryptoRequestSettled>> {
    return this.waitForEvent<CryptoRequestSettled>(paymentId, cryptoRequestSettled.name, timeoutMs);
  }

  /** Waits for the payment's request to close unpaid: its `crypto.request.closed.v1`. */
  closed(paymentId: string, timeoutMs?: number): Promise<Envelope<CryptoRequestClosed>> {
    return this.waitForEvent<CryptoRequestClosed>(paymentId, cryptoRequestClosed.name, timeoutMs);
  }

  /** Sends `crypto.request.simulate.v1` (sandbox) and answers its reply. */
  simulate(
    paymentId: string,
    outcome: SimulateCryptoOutcome['outcome'],
    amountCentavos: number | null = null,
    options: { timeoutMs?: number; messageId?: string } = {},
  ) {
    return this.bed.request(
      simulateCryptoOutcome,
      { payment_id: paymentId, outcome, amount_centavos: amountCentavos },
      options,
    );
  }

  /** Sends `crypto.request.change-amount.v1` and answers its reply. */
  changeAmount(
    paymentId: string,
    amountCentavos: number,
    options: { timeoutMs?: number; messageId?: string } = {},
  ) {
    return this.bed.request(
      changeCryptoRequestAmount,
      { payment_id: paymentId, business_name: 'Padaria Pão Quente', amount_centavos: amountCentavos },
      options,
    );
  }

  async request(reference: string): Promise<RequestRow> {
    const rows: RequestRow[] = await this.service.dataSource.query(
      'SELECT * FROM payment_requests WHERE reference = $1',
      [reference],
    );
    if (!rows[0]) throw new Error(`no request ${reference}`);
    return rows[0];
  }

  transfers(reference: string): Promise<TransferRow[]> {
    return this.service.dataSource.query(
      'SELECT * FROM transfers WHERE reference = $1 ORDER BY recorded_at, signature',
      [reference],
    );
  }

  /** Waits until the detector has recorded `count` transfers for the reference. */
  waitForTransfers(reference: string, count: number): Promise<TransferRow[]> {
    return waitFor(
      async () => {
        const rows = await this.transfers(reference);
        return rows.length >= count ? rows : undefined;
      },
      { what: `${count} transfer(s) on ${reference}` },
    );
  }
}
