/** One jest run over the whole workspace; each test file gets its own database, broker prefix and Redis prefix. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{services,packages,infra}/*/test/**/*.test.ts', '<rootDir>/bench/test/**/*.test.ts'],
  // The fault suite runs on its own (jest.faults.config.js): minutes of faults under load.
  testPathIgnorePatterns: ['/node_modules/', '\\.faults\\.test\\.ts$'],
  transform: { '^.+\\.ts$': swc },
  testTimeout: 30000,
  maxWorkers: 2,
  globalSetup: '<rootDir>/packages/testkit-core/src/global-setup.ts',
  // Failing tests are printed again at the very end, where a CI log's tail shows them, whatever the number of files.
  reporters: [['default', { summaryThreshold: 0 }], '<rootDir>/scripts/jest-slowest-files.js'],
};
