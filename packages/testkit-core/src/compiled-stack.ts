import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

/** Set in the environment once this process (or the jest run that started it) has built the stack. */
const BUILT_BY_THIS_RUN = 'GATEWAY_STACK_BUILT_BY_THIS_RUN';

/**
 * Compiles the stack's processes (`pnpm build`, about a second) unless this run already did: jest's global setup builds
 * for every worker (they inherit its environment; `always`, as it runs again before each run of `jest --watch`), and a
 * bench or a soak run builds before its first stack. So a test stack never runs a build older than the sources it is
 * tested against.
 */
export function ensureStackCompiled(always = false): void {
  if (!always && process.env[BUILT_BY_THIS_RUN] === '1') return;
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'infra/deploy/tools/build.ts')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.env[BUILT_BY_THIS_RUN] = '1';
}
