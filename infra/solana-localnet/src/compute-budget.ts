import { ComputeBudgetProgram, type VersionedTransaction } from '@solana/web3.js';

/** Agave's defaults: 200,000 compute units per instruction that is not a compute-budget one, at most 1.4 million. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;
/** The instruction discriminators of the compute-budget program. */
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

/** What a transaction's compute-budget instructions ask for, as a validator reads them. */
export interface ComputeBudget {
  /** Micro-lamports per compute unit; 0 without SetComputeUnitPrice. */
  computeUnitPrice: bigint;
  /** The requested limit, or the default for its instructions. */
  computeUnitLimit: number;
  /** What the price costs on top of the signature fee: price × limit (the limit asked, not the units used), rounded up. */
  priorityFeeLamports: bigint;
}

/**
 * Reads SetComputeUnitLimit and SetComputeUnitPrice the way a validator does: the price times the requested limit is
 * the priority fee, charged whether or not the units are used.
 */
export function computeBudgetOf(transaction: VersionedTransaction): ComputeBudget {
  const { message } = transaction;
  const keys = message.staticAccountKeys;
  let computeUnitPrice = 0n;
  let requestedLimit: number | null = null;
  let otherInstructions = 0;
  for (const instruction of message.compiledInstructions) {
    if (!keys[instruction.programIdIndex]?.equals(ComputeBudgetProgram.programId)) {
      otherInstructions += 1;
      continue;
    }
    const data = Buffer.from(instruction.data);
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length >= 5) requestedLimit = data.readUInt32LE(1);
    if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length >= 9) computeUnitPrice = data.readBigUInt64LE(1);
  }
  const computeUnitLimit = Math.min(
    MAX_COMPUTE_UNIT_LIMIT,
    requestedLimit ?? otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION,
  );
  const microLamports = computeUnitPrice * BigInt(computeUnitLimit);
  return {
    computeUnitPrice,
    computeUnitLimit,
    priorityFeeLamports: (microLamports + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT,
  };
}
