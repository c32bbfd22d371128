export * from './infrastructure';
export * from './isolation';
export * from './wait';
export { testLogger } from './logger';
export * from './service-env';
export * from './parking';
export * from './stack';
export * from './broker-cleanup';
export * from './test-pki';
