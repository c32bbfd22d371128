export * from './broker';
export * from './envelope';
export * from './errors';
export * from './topology';
export * from './unit-of-work';
export * from './outbox-relay';
export * from './outbox-inbox-migration';
export * from './service-runtime';
