import { type RequestHandler } from 'express';
import { type DataSource } from 'typeorm';
import { asyncHandler } from '@gateway/http-errors';
import { brasiliaDay, dateOf } from './business-days';

/**
 * The simulator's one source of "now": the machine's time moved forward by what tests asked for
 * (`POST {prefix}/sandbox/relogio/avancar`), kept in the books (`clock.offset_ms`) so a restart resumes at the date it
 * had reached. It only moves forward, as a bank's books never go back in time. Charge expiry, due dates and every
 * timestamp the simulator writes read it; OAuth tokens do not (their lifetime is the transport's, in real seconds, so
 * moving the date forward never logs a client out).
 */
/** How often a move of the clock made through another simulator on the same books is taken up. */
const CLOCK_FOLLOW_MS = 1000;

export class SimulatorClock {
  private offsetMs = 0;
  private database?: DataSource;
  private follower?: NodeJS.Timeout;
  private readonly listeners: Array<(now: Date) => Promise<void>> = [];

  /** Work that falls due as the clock moves (what expired, what is to be debited), run on each move forward. */
  onAdvance(listener: (now: Date) => Promise<void>): void {
    this.listeners.push(listener);
  }

  /**
   * Reads the offset kept in the books (the simulator's start), then takes up, every second, a move made through
   * another simulator on the same books (two API front ends of one bank share one date).
   */
  async open(database: DataSource): Promise<void> {
    this.database = database;
    await this.follow();
    this.follower = setInterval(() => void this.follow().catch(() => undefined), CLOCK_FOLLOW_MS);
    this.follower.unref();
  }

  /** The offset in the books, taken up now (never back). Routes about the date call it before they read it. */
  async follow(): Promise<void> {
    if (this.database === undefined) return;
    const [row] = (await this.database.query('SELECT offset_ms FROM clock')) as Array<{ offset_ms: string }>;
    this.offsetMs = Math.max(this.offsetMs, Number(row?.offset_ms ?? 0));
  }

  /** Stops taking up other simulators' moves (the simulator stops). */
  stop(): void {
    clearInterval(this.follower);
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** How far ahead of the machine's time the simulator is. */
  offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock forward by `ms` (never back), in the books first. Answers the new now. */
  async advance(ms: number): Promise<Date> {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    if (this.database === undefined) throw new Error('the PSP simulator has not opened its books');
    const [row] = (await this.database.query(
      'UPDATE clock SET offset_ms = offset_ms + $1 RETURNING offset_ms',
      [ms],
    )) as [Array<{ offset_ms: string }>, number];
    this.offsetMs = Math.max(this.offsetMs, Number(row[0]?.offset_ms ?? this.offsetMs + ms));
    const now = this.now();
    for (const listener of this.listeners) await listener(now);
    return now;
  }
}

/**
 * The first step of the routes whose records the clock changes (recurrences expiring, cycles sent and debited): takes
 * up the date another simulator on the same books may have moved, runs what fell due by it (`runDue`, the work the
 * clock also runs on each move), then passes the request on.
 */
export function runDueFirst(clock: SimulatorClock, runDue: (now: Date) => Promise<void>): RequestHandler {
  return asyncHandler(async (_req, _res, next) => {
    await clock.follow();
    await runDue(clock.now());
    next();
  });
}

/**
 * A recurrence's own clock (a sandbox's test clock, `POST /sandbox/rec/{idRec}/relogio/avancar`): the simulator's now
 * moved further ahead by the recurrence's offset, kept in its row. Everything about the recurrence and its cycles
 * reads it (expiry, sending, debits, retries, the timestamps written); nothing else does.
 */
export function recurrenceNow(now: Date, rec: { clockOffsetMs: number }): Date {
  return new Date(now.getTime() + rec.clockOffsetMs);
}

/** The calendar day (`YYYY-MM-DD`) an instant falls on in Brasília. */
export function todayOf(now: Date): string {
  return dateOf(brasiliaDay(now));
}
