import type { ValueTransformer } from 'typeorm';

/** Token base units live in `numeric` columns (arbitrary precision) and in code as bigint. */
export const bigintColumn: ValueTransformer = {
  to: (value: bigint | null | undefined) =>
    value === null || value === undefined ? value : value.toString(),
  from: (value: string | null) => (value === null ? null : BigInt(value)),
};

/** Slots fit a JS number; pg returns `bigint` columns as strings. */
export const slotColumn: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
