export * from './data-source';
export * from './schema';
