// A changed screen checked as a phone user meets it: axe clean, and at 320 px with text at 200 % nothing wider
// than the phone.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.ts';

/**
 * The visible buttons, links and fields a finger aims at that are smaller than 44 × 44 px, as "tag text w×h". A radio
 * or checkbox counts by its label (the label is what is tapped); a link inside a sentence is exempt, as WCAG exempts
 * it (its size is the text's).
 */
export function smallTargets(page: Page, scope = 'body'): Promise<string[]> {
  return page.evaluate(
    (sel) =>
      [
        ...document.querySelectorAll(
          `${sel} a[href], ${sel} button, ${sel} input:not([type=hidden]), ${sel} select, ${sel} textarea`,
        ),
      ]
        .filter((el) => !el.closest('.visually-hidden'))
        .map((el) => {
          const box =
            (el instanceof HTMLInputElement && ['radio', 'checkbox'].includes(el.type) && el.closest('label')) || el;
          return { el, r: box.getBoundingClientRect() };
        })
        .filter(
          ({ el, r }) =>
            r.width > 0 &&
            r.height > 0 &&
            (r.width < 44 || r.height < 44) &&
            !(
              el.tagName === 'A' &&
              el.parentElement?.tagName === 'P' &&
              (el.parentElement.textContent ?? '').trim() !== (el.textContent ?? '').trim()
            ),
        )
        .map(
          ({ el, r }) =>
            `${el.tagName.toLowerCase()} "${(el.textContent || (el as HTMLInputElement).name || '').trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`,
        ),
    scope,
  );
}

/**
 * Axe clean, and at 320 px, with text at 200 %, nothing wider than the phone. With `targets`, also nothing wider
 * than the page as it is opened, and every target at least 44 × 44 px at both text sizes.
 */
export async function fitsSmallAndLarge(page: Page, what: string, opts: { targets?: boolean } = {}) {
  expect(await axeViolations(page), what).toEqual([]);
  if (opts.targets) {
    const width = page.viewportSize()!.width;
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${what} at ${width} px`,
    ).toBeLessThanOrEqual(width);
    expect(await smallTargets(page), `${what}: targets under 44 × 44 px`).toEqual([]);
  }
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 320, height: size.height });
  await page.evaluate(() => (document.documentElement.style.fontSize = '200%'));
  // What sticks out, named: the text past the right edge (an element's box may fit while its words do not).
  const wide = await page.evaluate(() => {
    const out: string[] = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const parent = n.parentElement;
      if (!parent || parent.closest('.visually-hidden')) continue;
      // Inside a strip that scrolls sideways (the mall's places) text past the edge is scrolled to, not cut off.
      let scroller = parent as Element | null;
      while (scroller && !['auto', 'scroll'].includes(getComputedStyle(scroller).overflowX))
        scroller = scroller.parentElement;
      if (scroller && scroller !== document.documentElement && scroller.getBoundingClientRect().right <= 321) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      if (range.getBoundingClientRect().right > 321)
        out.push(`${parent.tagName.toLowerCase()}.${parent.className} "${n.textContent?.trim().slice(0, 40)}"`);
    }
    return out;
  });
  expect(wide, `${what} at 320 px, 200 % text`).toEqual([]);
  // A box past the edge (its text may fit), named by the innermost ones.
  const boxes = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter(
        (el) =>
          el.getBoundingClientRect().right > 321 &&
          ![...el.children].some((c) => c.getBoundingClientRect().right > 321),
      )
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)
      .slice(0, 5)
      .join(', '),
  );
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth),
    `${what} at 320 px, 200 % text: ${boxes}`,
  ).toBeLessThanOrEqual(320);
  expect(await axeViolations(page), `${what} at 200 % text`).toEqual([]);
  if (opts.targets) expect(await smallTargets(page), `${what} at 200 % text: targets under 44 × 44 px`).toEqual([]);
  await page.evaluate(() => (document.documentElement.style.fontSize = ''));
  await page.setViewportSize(size);
}
