import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The requests a task may still make at the PSP: every HTTP request made on its behalf counts, whatever asked for it
 * (a call, its retries after a 429 or 5xx, a new token, a call again after a 401), up to `limit` and until `until`.
 */
export class RequestBudget {
  used = 0;

  constructor(
    private readonly limit: number,
    private readonly until: number = Infinity,
  ) {}

  /** What is left now: nothing once the limit is reached or the time is up. */
  get left(): number {
    return Date.now() < this.until ? Math.max(0, this.limit - this.used) : 0;
  }

  take(): boolean {
    if (this.left <= 0) return false;
    this.used += 1;
    return true;
  }
}

/** A request refused because the budget of the task it was made for is spent: nothing reached the PSP. */
export class RequestBudgetSpent extends Error {
  constructor() {
    super('the request budget of this task at the PSP is spent');
    this.name = 'RequestBudgetSpent';
  }
}

const current = new AsyncLocalStorage<RequestBudget>();

/** Runs `task` with every PSP request it makes counted against `budget`. */
export function withinBudget<T>(budget: RequestBudget, task: () => Promise<T>): Promise<T> {
  return current.run(budget, task);
}

/** Counts one request against the budget of the task under way (none: not budgeted); throws when it is spent. */
export function takeFromBudget(): void {
  const budget = current.getStore();
  if (budget && !budget.take()) throw new RequestBudgetSpent();
}
