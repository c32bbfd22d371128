/**
 * The V8 heap settings of every long-running process, in front of its file on node's command line. They are used by:
 * - the images' command (`node <flags> dist/main.js`, held equal to this by a test);
 * - the launcher, for every process it starts, and so every test stack and the bench's stack;
 * - the processes tests start on their own;
 * - the bench's extra replicas;
 * - the rolling upgrade's new release.
 *
 * Why:
 * - V8 lets each of the young generation's two semi-spaces grow to 16 MiB. A process fills them while it loads its
 *   modules, and keeps them until it has been idle for a while.
 * - After each full collection, V8 lets the old generation grow to between 1.1 and 4 times what survived before the
 *   next one. So a process with about 40 MiB of live data peaked at 245 MiB under the bench's load.
 *
 * These settings:
 * - `--max-semi-space-size=4` holds each semi-space at 4 MiB.
 * - `--heap-growing-percent=50` fixes that growth factor at 1.5.
 *
 * Peaks stay near what a process uses. The cost was about 8 % more CPU per gateway read, within the machine's spread
 * (ADR 0049). Node refuses the second option in NODE_OPTIONS, and the first does nothing once the process has started,
 * so both go on the command line. One-shot commands (migrations, the deploy steps) run with node's defaults.
 */
export const processNodeFlags: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/**
 * The C library's memory settings of every long-running process, in its environment (glibc reads them when the
 * process starts, before node runs). Given by longRunningNode, with processNodeFlags, and set by the images (`ENV`, held
 * equal to this by a test).
 *
 * `MALLOC_TRIM_THRESHOLD_` gives memory freed at the top of the C heap back to the system once more than 128 KiB of it
 * is free, and fixes the thresholds glibc otherwise raises after a large allocation is freed. V8 allocates its parser's
 * and compiler's working memory there while a process loads its compiled file (a few MiB for one file of 2 MB), frees
 * it when done, and with glibc's moving thresholds that memory stayed resident for the process's life: 8 to 10 MiB of
 * each idle service, measured (ADR 0050).
 */
export const processMemoryEnvironment: Readonly<Record<string, string>> = {
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * The command line (after node itself) and the environment of a long-running process: processNodeFlags before `args`,
 * processMemoryEnvironment over `env`. Every starter (the launcher, the fault kit, the tests' processes, the benches)
 * spawns `process.execPath` with these, so a new setting goes here once.
 */
export function longRunningNode(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { args: string[]; env: Record<string, string | undefined> } {
  return { args: [...processNodeFlags, ...args], env: { ...env, ...processMemoryEnvironment } };
}
