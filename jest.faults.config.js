/** The fault suite (`pnpm test:faults`): the whole stack under faults, one file at a time, minutes long. */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/{services,packages,infra}/*/test/**/*.faults.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 15 * 60_000,
  maxWorkers: 1,
};
