/**
 * The V8 heap settings of every long-running process, in front of its file on node's command line: the images' command
 * (`node <flags> dist/main.js`), the launcher's processes, the bench's extra replicas and the rolling upgrade's new
 * release. V8 lets each semi-space of the young generation grow to 16 MiB, which a process fills while it loads its
 * modules and keeps until it has been idle for a while (32 MiB of a 100-MiB process); and after each full collection it
 * lets the old generation grow up to four times what survived before the next, so a process at 40 MiB of live data
 * peaked at 250 MiB under the bench's load. A 4-MiB semi-space and a growth of at most 50 % keep both near what the
 * process uses, for no measured loss of throughput (ADR 0049). One-shot commands (migrations, the deploy steps) run with
 * node's defaults.
 */
export const processNodeFlags: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];
