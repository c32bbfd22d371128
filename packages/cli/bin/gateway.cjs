#!/usr/bin/env node
// The `gateway` command: runs the TypeScript sources directly through tsx, as every process of the workspace does.
require('tsx/cjs/api').register();
const { run } = require('../src/main.ts');

run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
