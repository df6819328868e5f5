// The widget's size on a host page and the layout shifts it causes (embedApi.test.ts): an observer each page and
// frame runs from its start, what it counted, and the box's height against the content's.
import type { Frame, Page } from 'playwright-core';

/** Layout shifts of the host page itself (not its frames), without those right after input in the host. */
export const CLS_OBSERVER = () => {
  if (window.top !== window) {
    // Inside the widget's frame: its own layout shifts (Lighthouse counts a subframe's shifts in the page's CLS),
    // e.g. a screen that grows when a late string table arrives, under what the person is typing.
    const f = window as unknown as { __frameCls: number };
    f.__frameCls = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!e.hadRecentInput) f.__frameCls += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
    return;
  }
  const w = window as unknown as { __cls: number; __shifts: number[] };
  w.__cls = 0;
  w.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
      if (e.hadRecentInput) {
        (window as unknown as { __inputShifts: number }).__inputShifts =
          ((window as unknown as { __inputShifts?: number }).__inputShifts ?? 0) + e.value;
        continue;
      }
      w.__cls += e.value;
      w.__shifts.push(e.value);
      (w as unknown as { __where: string[] }).__where = [
        ...((w as unknown as { __where?: string[] }).__where ?? []),
        `${Math.round(e.startTime)}:${((e as unknown as { sources: { node?: Node }[] }).sources ?? []).map((x) => (x.node as Element | undefined)?.tagName + '#' + ((x.node as Element | undefined)?.id ?? '')).join(',')}`,
      ];
    }
  }).observe({ type: 'layout-shift', buffered: true });
};

/** The host page's layout shifts, and the frame's own (CLS_OBSERVER). */
export const cls = (page: Page) => page.evaluate(() => (window as unknown as { __cls: number }).__cls);
export const frameCls = (frame: Frame) =>
  frame.evaluate(() => (window as unknown as { __frameCls: number }).__frameCls);

/**
 * The person's next touch of the host page (its heading): a size change the widget asked for while it would
 * have shifted the host is applied now, within the browser's input window (a tap inside the frame is no
 * input of the host document's).
 */
export async function touchHost(page: Page) {
  await page.getByRole('heading', { level: 1 }).first().click();
}

/** The box's height on the host page and the content's height inside the frame. */
export async function heights(page: Page, box: string, frame: Frame) {
  const outer = await page.locator(box).evaluate((el) => el.getBoundingClientRect().height);
  const inner = await frame.evaluate(() => Math.ceil(document.getElementById('root')!.getBoundingClientRect().height));
  return { outer, inner };
}
