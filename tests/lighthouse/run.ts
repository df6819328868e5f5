// `npm run lighthouse`: Lighthouse (navigation mode, mobile preset) on the embed's host pages and the app's
// first screens, against the whole product started here on ephemeral ports (the browser tests' build: fresh
// database, simulator, sandbox payments) with the partner site on another origin. Debian's Chromium via
// chrome-launcher (CHROME_PATH, default /usr/bin/chromium). Prints the performance score and the metrics;
// the README keeps the figures. Also a timespan over a whole rental on venue.html and on the partner page
// (Lighthouse user flow): the page's CLS through the rental. LH_SPANS_ONLY=1 runs only the timespans; LH_PAGES and
// LH_JSON (below) pick pages and keep their reports and traces.
import { launch } from 'chrome-launcher';
import lighthouse, { startFlow, type Result } from 'lighthouse';
import puppeteer, { type Frame } from 'puppeteer-core';
import { build } from '../../server/test/helper.ts';
import { startPartnerSite } from '../../server/src/demo/partner-site.ts';

const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

const product = await build({ frontEnd: 'dist' });
const base = await product.app.listen({ port: 0, host: '127.0.0.1' });
const partner = await startPartnerSite('dist', 0, '127.0.0.1', base);
const origin = new URL(base).origin;
await product.app.powerly.embed.saveAgent({ id: 'demo-venue', name: 'venue', origins: [origin] });
await product.app.powerly.embed.saveAgent({
  id: 'demo-partner',
  name: 'partner',
  origins: [new URL(partner.url).origin],
});

const pages: [string, string][] = [
  ['embed: venue.html (two <powerly-rent>)', `${base}/demo/venue.html`],
  ['embed: partner page (loader)', `${partner.url}/demo/partner/`],
  ['app: /', `${base}/`],
  // What a cabinet's QR code opens: the server renders its package screen (server/src/codeLinkPage.ts).
  ['app: code link /?qrcode=', `${base}/?qrcode=PWL-LIS-001`],
  ['app: code link, hash form', `${base}/#/?qrcode=PWL-LIS-001`],
  ['app: #/aboutUsApp/en-US', `${base}/#/aboutUsApp/en-US`],
];

const chrome = await launch({ chromePath: CHROME, chromeFlags: FLAGS });
const ms = (v: number | undefined) => (v === undefined ? '-' : `${Math.round(v)} ms`);
/** Each page's median LCP and TBT over its runs (for the code link's ratio to the landing, printed at the end). */
const medians = new Map<string, { lcp: number; tbt: number }>();
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)] ?? NaN;
try {
  // LH_PAGES (a pattern on the names) runs only those pages and no timespan; LH_JSON (a folder) keeps each report.
  const only = process.env.LH_PAGES ? new RegExp(process.env.LH_PAGES) : undefined;
  for (const [name, url] of process.env.LH_SPANS_ONLY ? [] : pages.filter(([n]) => !only || only.test(n))) {
    // LH_RUNS (default 1) runs of each page; the one with the median score is printed (Lighthouse's advice for
    // variance: on this machine single runs of one build differ by more than the goals' margins).
    const runs: Result[] = [];
    const traces = new Map<Result, unknown>();
    for (let i = 0; i < Math.max(1, Number(process.env.LH_RUNS ?? 1)); i++) {
      const r = (await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
      }))!;
      runs.push(r.lhr);
      traces.set(r.lhr, r.artifacts.Trace);
    }
    const score = (l: Result) => l.categories.performance?.score ?? 0;
    runs.sort((x, y) => score(x) - score(y));
    const lhr = runs[Math.floor((runs.length - 1) / 2)]!;
    // Each run's TBT too, in the scores' order, and their median (a goal on TBT is on the median of the runs).
    const tbts = runs.map((l) => l.audits['total-blocking-time']?.numericValue ?? NaN);
    if (runs.length > 1)
      console.info(
        `${name}: ${runs.length} runs, scores ${runs.map((l) => Math.round(score(l) * 100)).join(' ')}, ` +
          `TBT ${tbts.map(ms).join(' / ')} (median ${ms(median(tbts.filter(Number.isFinite)))}); the median run:`,
      );
    if (process.env.LH_JSON) {
      const { mkdir, writeFile } = await import('node:fs/promises');
      await mkdir(process.env.LH_JSON, { recursive: true });
      const file = `${process.env.LH_JSON}/${name.replace(/[^a-z0-9]+/gi, '-')}`;
      await writeFile(`${file}.json`, JSON.stringify(lhr));
      // The median run's Chromium trace (its main-thread tasks, for chrome://tracing or the DevTools panel).
      await writeFile(`${file}.trace.json`, JSON.stringify(traces.get(lhr)));
    }
    // The host's CPU as Lighthouse rates it (its 4× slowdown assumes about 1,500): figures from hosts far apart differ.
    if (name === pages[0]![0]) console.info(`host benchmarkIndex ${Math.round(lhr.environment.benchmarkIndex)}`);
    const a = (id: string) => lhr.audits[id]?.numericValue;
    const all = (id: string) => runs.map((l) => l.audits[id]?.numericValue ?? NaN);
    medians.set(name, { lcp: median(all('largest-contentful-paint')), tbt: median(all('total-blocking-time')) });
    console.info(
      `${name.padEnd(42)} performance ${Math.round((lhr.categories.performance?.score ?? 0) * 100)
        .toString()
        .padStart(3)}` +
        `  FCP ${ms(a('first-contentful-paint'))}  LCP ${ms(a('largest-contentful-paint'))}  TBT ${ms(a('total-blocking-time'))}` +
        `  CLS ${(a('cumulative-layout-shift') ?? 0).toFixed(3)}  SI ${ms(a('speed-index'))}`,
    );
  }

  // The code link's LCP to the landing's, measured in this same run (medians over LH_RUNS).
  const landing = medians.get('app: /');
  for (const name of ['app: code link /?qrcode=', 'app: code link, hash form']) {
    const code = medians.get(name);
    if (landing && code && Number.isFinite(code.lcp) && Number.isFinite(landing.lcp)) {
      console.info(
        `${name}: LCP ${ms(code.lcp)} = ${(code.lcp / landing.lcp).toFixed(2)} × the landing's (${ms(landing.lcp)}), TBT ${ms(code.tbt)} (medians of ${process.env.LH_RUNS ?? 1})`,
      );
    }
  }

  // A whole rental on each embed host page as a Lighthouse timespan: the page's layout shifts through it
  // (the host's and the widget frame's own: Lighthouse counts a subframe's shifts in the page's CLS).
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const spans: [string, string, string][] = [
    ['embed: venue.html, a whole rental', `${base}/demo/venue.html`, 'slot=rent-lisbon'],
    ['embed: partner page, a whole rental', `${partner.url}/demo/partner/`, '/embed/frame.html'],
  ];
  for (const [name, url, frameMark] of only ? [] : spans) {
    const page = await browser.newPage();
    // Lighthouse's mobile screen, set once here, with Lighthouse's own screen emulation off: left on, it drops
    // the emulation after the navigation and at the end of the timespan and puts it back at its start, so the
    // page flips between the phone and the headless window (780 × 493) at the span's edges, and the partner
    // page's centred column moves with it (measured: only those flips shifted anything, never the widget).
    await page.setViewport({ width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
    const flow = await startFlow(page, {
      name,
      config: { extends: 'lighthouse:default', settings: { screenEmulation: { disabled: true } } },
    });
    await flow.navigate(url);
    await flow.startTimespan({ name });
    const frameOf = async (): Promise<Frame> => {
      for (let i = 0; i < 100; i++) {
        const f = page.frames().find((x) => x.url().includes('/embed/frame.html') && x.url().includes(frameMark));
        if (f) return f;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no widget frame');
    };
    const frame = await frameOf();
    const click = async (text: string) => {
      const el = await frame.waitForSelector(`::-p-text(${text})`, { timeout: 20_000 });
      await el!.click();
    };
    await click('Continue');
    // The Hold button once more if the first tap landed while the screen was still settling (seen now and then).
    await click('Hold ');
    await frame.waitForSelector('form.card-form input', { timeout: 5_000 }).catch(() => click('Hold '));
    await frame.waitForSelector('form.card-form input', { timeout: 20_000 }).catch(async (e: unknown) => {
      throw new Error(
        `${name}: no card form at ${frame.url()}: ${(await frame.evaluate(() => document.body.innerText)).slice(0, 400)}`,
        { cause: e },
      );
    });
    const inputs = await frame.$$('form.card-form input');
    await inputs[0]!.type('4242424242424242');
    await inputs[1]!.type('1234');
    await inputs[2]!.type('123');
    await click('Authorize');
    await frame.waitForSelector('::-p-text(Your power bank is out!)', { timeout: 30_000 });
    const text = await frame.evaluate(() => document.body.innerText);
    const id = /power bank (\S+) from slot/.exec(text)?.[1];
    if (!id) throw new Error(`${name}: no power bank id in "${text.slice(0, 200)}"`);
    await fetch(`${base}/demo-api/cabinets/PWL-LIS-001/return`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ powerbankId: id }),
    });
    await page.waitForFunction(() => document.body.innerText.includes('rental.returned'), { timeout: 30_000 });
    await flow.endTimespan();
    const result = await flow.createFlowResult();
    const span = result.steps.find((s) => s.lhr.gatherMode === 'timespan')!.lhr;
    console.info(
      `${`${name} (timespan)`.padEnd(42)} CLS ${(span.audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3)}  TBT ${ms(span.audits['total-blocking-time']?.numericValue)}`,
    );
    // What moved, when anything did (Lighthouse's layout-shifts audit: the element and its share).
    const moved =
      (
        span.audits['layout-shifts']?.details as
          { items?: { node?: { selector?: string }; score?: number }[] } | undefined
      )?.items ?? [];
    for (const m of moved) console.info(`  shifted: ${m.node?.selector ?? '?'} ${(m.score ?? 0).toFixed(3)}`);
    await page.close();
  }
  await browser.disconnect();
} finally {
  await chrome.kill();
  await partner.site.close();
  await product.close();
}
