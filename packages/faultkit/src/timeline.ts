/** When each fault was injected and given back: violations name the faults around them, for diagnosis. */
export interface FaultWindow {
  name: string;
  reachesClients: boolean;
  startedAt: number;
  endedAt: number;
}

/** After a fault is given back, its effects (retries, restarts) may last this long. */
const AFTERMATH_MS = 15_000;

export class FaultTimeline {
  readonly windows: FaultWindow[] = [];
  readonly startedAt = Date.now();

  async record(fault: { name: string; reachesClients: boolean }, inject: () => Promise<void>): Promise<void> {
    const startedAt = Date.now();
    try {
      await inject();
    } finally {
      this.windows.push({
        name: fault.name,
        reachesClients: fault.reachesClients,
        startedAt,
        endedAt: Date.now(),
      });
    }
  }

  /** `at +12.3 s, during "kill -9 payment"` (or `no fault near`) for a moment or a span of the run. */
  describe(from: number, to = from): string {
    const near = this.windows
      .filter((w) => w.startedAt <= to && w.endedAt + AFTERMATH_MS >= from)
      .map((w) => `"${w.name}"`);
    const when = `at +${this.offset(from)}${to > from ? `..+${this.offset(to)}` : ''}`;
    return `${when}, ${near.length > 0 ? `during/after ${near.join(', ')}` : 'no fault near'}`;
  }

  /** How much of the span `from..to` a fault in the clients' way was under way. */
  clientFaultMs(from: number, to: number): number {
    return this.windows
      .filter((w) => w.reachesClients)
      .map((w) => Math.min(to, w.endedAt) - Math.max(from, w.startedAt))
      .filter((ms) => ms > 0)
      .reduce((sum, ms) => sum + ms, 0);
  }

  /** One line per fault: `+12.3 s .. +20.1 s kill -9 payment`. */
  lines(): string[] {
    return this.windows.map((w) => `+${this.offset(w.startedAt)} .. +${this.offset(w.endedAt)}  ${w.name}`);
  }

  private offset(at: number): string {
    return `${((at - this.startedAt) / 1000).toFixed(1)} s`;
  }
}
