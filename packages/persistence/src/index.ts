export * from './data-source';
export * from './schema';
export * from './secret-box';
export * from './final-row-guard';
export * from './keyset-page';
export * from './bigint-as-number';
