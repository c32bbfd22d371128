import type { Browser } from 'playwright-core';
import { startStack, type RunningStack } from '@gateway/testkit';
import { launchBrowser } from './browser';

/** The whole stack and one Chromium, shared by the describes of one end-to-end file. */
export interface BrowserStack {
  readonly stack: RunningStack;
  readonly browser: Browser;
}

/**
 * Starts the whole stack (with `env` over its settings) and Chromium before the enclosing describe's tests, and stops
 * both after them; read the fields inside hooks and tests. Each describe opens its own browser contexts and creates its
 * own businesses and people, so several share one stack: starting a stack is most of an end-to-end file's time.
 */
export function browserStackForThisFile(env: Record<string, string> = {}): BrowserStack {
  const shared = {} as { stack: RunningStack; browser: Browser };
  beforeAll(async () => {
    shared.stack = await startStack(env);
    shared.browser = await launchBrowser();
  }, 150_000);
  afterAll(async () => {
    await shared.browser?.close();
    await shared.stack?.stop();
  }, 60_000);
  return shared;
}
