import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Clock ticks per second of /proc's utime and stime. */
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

interface ProcStat {
  pid: number;
  comm: string;
  cpuTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: the fields after its closing parenthesis are space-separated.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // After comm: state(3) ... utime(14) stime(15) cutime(16) cstime(17), counting from 1 with pid and comm as 1 and 2.
    // cutime/cstime hold the children it reaped: PostgreSQL's backends that ended (a pool closing an idle connection)
    // stay counted in the postmaster's.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    return { pid, comm, cpuTicks: utime + stime + cutime + cstime };
  } catch {
    return undefined; // gone between the listing and the read
  }
}

function everyProcess(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
}

/** What to account CPU to: one process by pid, or every process of a command name (PostgreSQL's backends). */
export type ProcessGroup = { name: string; pid: number } | { name: string; comm: string };

/** CPU time in ms of each group now (user + system). */
export function sampleCpu(groups: readonly ProcessGroup[]): Map<string, number> {
  const all = everyProcess();
  const sample = new Map<string, number>();
  for (const group of groups) {
    const ticks =
      'pid' in group
        ? (all.find((stat) => stat.pid === group.pid)?.cpuTicks ?? 0)
        : all.filter((stat) => stat.comm === group.comm).reduce((sum, stat) => sum + stat.cpuTicks, 0);
    sample.set(group.name, (sample.get(group.name) ?? 0) + (ticks * 1000) / ticksPerSecond);
  }
  return sample;
}

/** CPU ms spent per group between two samples, divided by `requests`. */
export function cpuPerRequest(
  before: Map<string, number>,
  after: Map<string, number>,
  requests: number,
): Record<string, number> {
  const perRequest: Record<string, number> = {};
  for (const [name, ms] of after) {
    perRequest[name] = requests > 0 ? Math.max(0, ms - (before.get(name) ?? 0)) / requests : 0;
  }
  return perRequest;
}

/** A process's resident memory now and its peak since it started (VmRSS and VmHWM of /proc/<pid>/status), in MiB. */
function readMemory(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  } catch {
    return undefined; // gone
  }
}

/**
 * Resident memory by group, in MiB: now (`rss`) and the peak since each process started (`peak`), the largest of a
 * group's replicas (a budget is per process). Groups named by command (PostgreSQL's backends) are left out.
 */
export function sampleMemory(groups: readonly ProcessGroup[]): MemorySample {
  const sample: MemorySample = {};
  for (const group of groups) {
    if (!('pid' in group)) continue;
    const memory = readMemory(group.pid);
    if (!memory) continue;
    mergeLargest(sample, {
      [group.name]: { rss: Math.round(memory.rssMiB), peak: Math.round(memory.peakMiB) },
    });
  }
  return sample;
}

/** Resident and peak memory by name, in MiB (of the largest replica when a name has several). */
export type MemorySample = Record<string, { rss: number; peak: number }>;

/** Keeps in `into` the larger of its figures and `sample`'s, name by name (replicas of one service, samples over time). */
export function mergeLargest(into: MemorySample, sample: MemorySample): MemorySample {
  for (const [name, { rss, peak }] of Object.entries(sample))
    into[name] = { rss: Math.max(into[name]?.rss ?? 0, rss), peak: Math.max(into[name]?.peak ?? 0, peak) };
  return into;
}
