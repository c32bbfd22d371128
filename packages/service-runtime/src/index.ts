export * from './service-runtime';
export * from './shutdown';
export * from './graceful-http';
export * from './batch-task';
export * from './batch-purge';
