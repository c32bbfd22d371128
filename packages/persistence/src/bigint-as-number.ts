import type { ValueTransformer } from 'typeorm';

/** A `bigint` column read as a number: pg returns int8 as a string; centavos stay below 2^53, so a number is exact. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
