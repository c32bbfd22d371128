export * from './data-source';
export * from './schema';
export * from './final-row-guard';
