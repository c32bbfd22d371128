import { type AddressInfo } from 'node:net';
import { type Server } from 'node:http';
import { Keypair, LAMPORTS_PER_SOL, type PublicKey } from '@solana/web3.js';
import { createLogger, type Logger } from '@gateway/observability';
import { Ledger } from './ledger';
import { Seeder } from './seeding';
import { RpcTraffic, createRpcApp } from './server';
import { STABLECOIN_MINTS, type StablecoinSymbol } from './mints';
import { DEFAULT_RPC_MODES, type RpcModes } from './rpc-modes';
import { FORWARDER_PROGRAM_ID, forwarderProgramElf } from './forwarder-program';

// The wallet that pays on this chain in tests lives in its own package: the watcher's sandbox wallet uses it too.
export {
  payTransferRequest,
  signTransferRequest,
  type SignedTransfer,
  type TransferRequestPayment,
} from '@gateway/solana-pay-wallet';
export { Ledger } from './ledger';
export { Seeder } from './seeding';
export { STABLECOIN_MINTS, type StablecoinSymbol } from './mints';
export { FAILING_MEMO } from './sandbox-rules';
export { FORWARDER_PROGRAM_ID, forwarderInstruction } from './forwarder-program';
export { type RateLimit, type RpcModes } from './rpc-modes';

const STABLECOIN_DECIMALS = 6;
const SEEDED_SOL = 1_000 * LAMPORTS_PER_SOL;
const RECEIVING_WALLET_SOL = 10 * LAMPORTS_PER_SOL;
/** One million whole tokens of each stablecoin per seeded wallet. */
const SEEDED_TOKEN_BASE_UNITS = 1_000_000n * 10n ** BigInt(STABLECOIN_DECIMALS);

export interface LocalnetOptions {
  port: number;
  host?: string;
  /** Wallets (besides the generated payer) funded with SOL and every stablecoin, e.g. the sandbox's paying wallet. */
  seedWallets?: PublicKey[];
  payer?: Keypair;
  receivingWallet?: PublicKey;
  /** When false, the receiving wallet has no token accounts and the first payment creates them. */
  createReceivingTokenAccounts?: boolean;
  /** Real-node behaviours (commitment lags, rate limits); none by default. */
  modes?: Partial<RpcModes>;
  logger?: Logger;
}

export interface Localnet {
  url: string;
  port: number;
  mints: Record<StablecoinSymbol, string>;
  payer: Keypair;
  receivingWallet: PublicKey;
  mintAuthority: Keypair;
  /**
   * A program of ours that invokes the program named by its first account with its other accounts and its own
   * instruction data: a transfer sent through it is an inner (CPI) instruction. See forwarder-program.ts.
   */
  forwarderProgram: PublicKey;
  ledger: Ledger;
  seeder: Seeder;
  /** Requests served per method and refused over budget since start. */
  traffic: RpcTraffic;
  /** Changes the node's behaviour from now on; what is not given stays as it is. */
  setModes(modes: Partial<RpcModes>): void;
  close(): Promise<void>;
}

export async function startLocalnet(options: LocalnetOptions): Promise<Localnet> {
  const logger = options.logger ?? createLogger('solana-localnet', 'silent');
  const ledger = new Ledger();
  const seeder = new Seeder(ledger);
  const mintAuthority = Keypair.generate();
  const payer = options.payer ?? Keypair.generate();
  const receivingWallet = options.receivingWallet ?? Keypair.generate().publicKey;
  ledger.addProgram(FORWARDER_PROGRAM_ID.toBase58(), forwarderProgramElf());

  for (const mint of Object.values(STABLECOIN_MINTS)) {
    seeder.createMint(mint, mintAuthority.publicKey, STABLECOIN_DECIMALS);
  }
  for (const wallet of [payer.publicKey, ...(options.seedWallets ?? [])]) {
    seeder.fundSol(wallet, SEEDED_SOL);
    for (const mint of Object.values(STABLECOIN_MINTS)) seeder.mintTo(wallet, mint, SEEDED_TOKEN_BASE_UNITS);
  }
  // It signs and pays refunds: their fees, and the rent of a buyer's token account a refund creates.
  seeder.fundSol(receivingWallet, RECEIVING_WALLET_SOL);
  if (options.createReceivingTokenAccounts ?? true) {
    for (const mint of Object.values(STABLECOIN_MINTS)) seeder.mintTo(receivingWallet, mint, 0n);
  }

  const modes: RpcModes = { ...DEFAULT_RPC_MODES };
  const setModes = (changes: Partial<RpcModes>): void => {
    Object.assign(modes, changes);
    ledger.lags = { confirmedMs: modes.confirmedLagMs, finalizedMs: modes.finalizedLagMs };
  };
  setModes(options.modes ?? {});
  const traffic = new RpcTraffic();
  const server = await listen(
    createRpcApp(ledger, modes, logger, traffic),
    options.port,
    options.host ?? '127.0.0.1',
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  logger.info(
    {
      url,
      payer: payer.publicKey.toBase58(),
      receivingWallet: receivingWallet.toBase58(),
      forwarderProgram: FORWARDER_PROGRAM_ID.toBase58(),
    },
    'localnet up',
  );
  return {
    url,
    port,
    mints: {
      USDC: STABLECOIN_MINTS.USDC.toBase58(),
      USDT: STABLECOIN_MINTS.USDT.toBase58(),
      EURC: STABLECOIN_MINTS.EURC.toBase58(),
    },
    payer,
    receivingWallet,
    mintAuthority,
    forwarderProgram: FORWARDER_PROGRAM_ID,
    ledger,
    seeder,
    setModes,
    traffic,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listen(app: ReturnType<typeof createRpcApp>, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once('error', reject);
  });
}
