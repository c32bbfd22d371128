import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

describe("the generated files, the SDK's, the CLI's and the gateway's (run `pnpm generate:sdk` after changing an operation)", () => {
  // The generator lives with the root's scripts, which no package imports: it is asked as a process which files it
  // would write otherwise than they are.
  let stale: string[];
  beforeAll(() => {
    const output = execFileSync(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'scripts/generate-sdk-routes.ts'), '--check'],
      { cwd: root, encoding: 'utf8' },
    );
    stale = JSON.parse(output.trim().split('\n').pop()!);
  }, 60_000);

  test('the route table is the one generated from the operation table', () => {
    expect(stale).not.toContain('routes.ts');
  });

  test('the types are the ones generated from the JSON Schema of the operation table', () => {
    expect(stale).not.toContain('types.ts');
  });

  test("the SDK's namespaces of methods are the ones of the operation table's entries", () => {
    expect(stale).not.toContain('methods.ts');
  });

  test("the gateway's operation types (its handlers' bodies, queries and answers) are the ones generated", () => {
    expect(stale).not.toContain('operation-types.ts');
  });

  test("the CLI's command facts are the ones of the operation table's entries", () => {
    expect(stale).not.toContain('commands.ts');
  });
});
