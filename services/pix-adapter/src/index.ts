// Entry points for running the adapter in-process (end-to-end tests of other services, local stacks).
export { startPixAdapter, type PixAdapter } from './main';
export { loadPixAdapterConfig, SANDBOX_PIX_KEY, type PixAdapterConfig } from './config';
