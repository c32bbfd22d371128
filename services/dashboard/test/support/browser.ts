import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Headless Chromium from CHROMIUM_PATH (else Debian's /usr/bin/chromium). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now (WCAG 2.1 A and AA rules
 * and best practices). axe is injected through the DevTools protocol, so the page's own content security policy,
 * which allows no inline script, stays as it is.
 */
export async function seriousViolations(
  page: Page,
): Promise<Array<{ id: string; help: string; targets: unknown[] }>> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

/** Where the end-to-end tests leave their screenshots of the pages (`artifacts/dashboard`, ignored by git). */
export const screenshotFolder = join(__dirname, '../../../../artifacts/dashboard');

/** A whole-page screenshot of what the person sees now, as `artifacts/dashboard/<name>.png` (the guides show some). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotFolder, { recursive: true });
  await page.screenshot({ path: join(screenshotFolder, `${name}.png`), fullPage: true });
}
