import type { DataSource } from 'typeorm';
import { tokens, type GetWalletBalances, type Token, type WalletBalances } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { SolanaRpc } from '../clients/solana-rpc';
import { receivedSinceByMint } from '../persistence';

export interface WalletBalancesDeps {
  dataSource: DataSource;
  connection: Pick<SolanaRpc, 'getTokenAccountsByOwner' | 'getTokenAccountBalance'>;
  receivingWallet: string;
  mints: Record<Token, string>;
  /** What a token has when the wallet holds no account of it yet. */
  decimals: number;
  now?: () => Date;
}

/**
 * The receiving wallet's balance of each accepted token, read from the chain (docs/operating.md#reconciliation-of-the-books): its
 * token accounts of the token's mint (`getTokenAccountsByOwner`), each one's `getTokenAccountBalance`, summed, in base
 * units; with what the transfers recorded in the last `recent_seconds` brought, which the books may not have posted
 * yet. A chain that cannot be read is SERVICE_UNAVAILABLE: the ledger compares nothing rather than a guess.
 */
export function handleGetWalletBalances(deps: WalletBalancesDeps) {
  return async (query: GetWalletBalances): Promise<WalletBalances> => {
    const now = deps.now?.() ?? new Date();
    const since = new Date(now.getTime() - (query.recent_seconds ?? 0) * 1000);
    const recent = await receivedSinceByMint(deps.dataSource.manager, since);
    try {
      const balances = await Promise.all(
        tokens.map(async (token) => {
          const mint = deps.mints[token];
          const accounts = await deps.connection.getTokenAccountsByOwner(deps.receivingWallet, mint);
          let baseUnits = 0n;
          let decimals = deps.decimals;
          for (const account of accounts) {
            const value = await deps.connection.getTokenAccountBalance(account);
            baseUnits += BigInt(value.amount);
            decimals = value.decimals;
          }
          const recentBaseUnits = (recent.get(mint) ?? 0n).toString();
          return {
            token,
            mint,
            base_units: baseUnits.toString(),
            decimals,
            recent_base_units: recentBaseUnits,
          };
        }),
      );
      return {
        wallet: deps.receivingWallet,
        read_at: now.toISOString(),
        balances,
      };
    } catch (error) {
      throw new CommandError(
        'SERVICE_UNAVAILABLE',
        `the chain could not be read: ${(error as Error).message}`,
      );
    }
  };
}
