// `pnpm admin <command> ...`: the operator commands of the one CLI (packages/cli, `gateway admin`), answering JSON as
// this script always has. GATEWAY_URL and ADMIN_TOKEN as before.
import { run } from '../packages/cli/src/main';

run(['--json', 'admin', ...process.argv.slice(2)]).then((code) => {
  process.exitCode = code;
});
