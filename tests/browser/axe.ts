// axe-core in the page under test: every rule of WCAG 2.0/2.1 A and AA; a test expects no violation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

// Evaluated through the DevTools protocol rather than added as a <script>: the app's Content-Security-Policy
// (script-src 'self') rightly refuses inline scripts, and the test must not weaken it.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; help: string; nodes: { target: string[] }[] }[];
}

/** The violations on the page now, as "rule: target, target" lines (empty when clean). */
export async function axeViolations(page: Page | Frame): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<AxeResult> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
  });
  return result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
