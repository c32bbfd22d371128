export * from './logger';
export * from './metrics';
export * from './tracing';
export * from './telemetry';
