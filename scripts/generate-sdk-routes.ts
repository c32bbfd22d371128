/**
 * `pnpm generate:sdk`: writes the SDK's route table (packages/sdk/src/generated/routes.ts), one route per operation of
 * the public API (`/v1`, the sandbox included), its types (generated/types.ts, see generate-sdk-types.ts) and its
 * namespaces of methods (generated/methods.ts, see generate-sdk-methods.ts) from the gateway's operation table; the
 * facts of the CLI's commands (packages/cli/src/generated/commands.ts, see generate-cli-commands.ts); and the gateway's
 * own operation types (packages/contracts/src/generated/operation-types.ts, same generator), which type the table's
 * handlers. The SDK and the CLI cannot import the gateway, and the gateway's handlers are typed by what its schemas
 * publish, so they are generated (this runs without a type-check, so a stale file never stops it);
 * services/api-gateway/test/sdk-routes.unit.test.ts fails when one of the files is stale.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { operations } from '../services/api-gateway/src/http/openapi';
import { CLI_COMMANDS_FILE, renderCliCommands } from './generate-cli-commands';
import { SDK_METHODS_FILE, renderSdkMethods } from './generate-sdk-methods';
import {
  OPERATION_TYPES_FILE,
  SDK_TYPES_FILE,
  renderOperationTypes,
  renderSdkTypes,
} from './generate-sdk-types';

export const SDK_ROUTES_FILE = join(__dirname, '..', 'packages', 'sdk', 'src', 'generated', 'routes.ts');

/** The file's text: every `api` and `sandbox` operation by its operation id, with its method and path. */
export function renderSdkRoutes(): string {
  const entries = operations
    .filter((op) => op.area === 'api' || op.area === 'sandbox')
    .map((op) => `  ${op.operationId}: { method: '${op.method.toUpperCase()}', path: '${op.path}' },`);
  // Written as the project's formatter writes it (one line per route, single quotes).
  return [
    "// Generated from the gateway's operation table by `pnpm generate:sdk` (scripts/generate-sdk-routes.ts): do not",
    '// edit. One route per operation of the public API, by its operation id.',
    '',
    'export const generatedRoutes = {',
    ...entries,
    '} as const;',
    '',
  ].join('\n');
}

if (require.main === module) {
  const files: Array<[string, string]> = [
    [SDK_ROUTES_FILE, renderSdkRoutes()],
    [SDK_TYPES_FILE, renderSdkTypes()],
    [SDK_METHODS_FILE, renderSdkMethods()],
    [OPERATION_TYPES_FILE, renderOperationTypes()],
    [CLI_COMMANDS_FILE, renderCliCommands()],
  ];
  if (process.argv.includes('--check')) {
    // For the staleness test, which runs this as a process (a test reaches the root's scripts only that way).
    console.log(
      JSON.stringify(
        files
          .filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text)
          .map(([file]) => basename(file)),
      ),
    );
  } else {
    for (const [file, text] of files) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${file}`);
    }
  }
}
