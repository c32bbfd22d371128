/**
 * A deploy step runs as its container's PID 1 (exec-form command), and the kernel delivers no signal to a PID 1 that
 * has no handler for it: without these, the kubelet's SIGTERM on a deleted pod (or `docker stop`'s) is ignored and the
 * pod takes its whole grace period to go. Nothing a step does needs finishing before it ends: applying the definitions
 * is a series of idempotent PUTs the Job runs again, and waiting for them is only waiting. So SIGTERM and SIGINT end
 * it at once, with the exit code a shell gives a process ended by that signal (128 + its number).
 */
export function endOnStopSignal(): void {
  process.once('SIGTERM', () => process.exit(143));
  process.once('SIGINT', () => process.exit(130));
}
