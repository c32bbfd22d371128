import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The folder a browser test saves its screenshots in (`artifacts/<name>` at the repository's root), made if missing. */
export function screenshotFolder(name: string): string {
  const folder = join(__dirname, '../../../../artifacts', name);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** Headless Chromium from CHROMIUM_PATH (else /usr/bin/chromium), with no traffic of its own in the background. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
