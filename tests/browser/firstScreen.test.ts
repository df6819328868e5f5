// The first screens paint before any JavaScript runs (build/prerender.ts, src/core/firstScreen.ts): the built
// pages carry the real screens' text; with JavaScript off the landing and the web-view paths still show it; with
// it on, the app hydrates that very markup (the nodes painted first are the ones it then updates), with no
// console error or warning (a blocked inline script, a hydration problem), and a stored other language never
// shows the English markup.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { mounted } from './chromium.ts';
import { productInChromium } from './product.ts';

const env = productInChromium();
const en = JSON.parse(readFileSync(new URL('../../locales/en-US.json', import.meta.url), 'utf8'));
const lt = JSON.parse(readFileSync(new URL('../../locales/lt-LT.json', import.meta.url), 'utf8'));
const zh = JSON.parse(readFileSync(new URL('../../locales/zh-CN.json', import.meta.url), 'utf8'));
const dist = (f: string) => readFileSync(new URL(`../../dist/${f}`, import.meta.url), 'utf8');

/** A page whose console errors and warnings (and uncaught errors) are collected, and whose #root is noted as parsed. */
async function watchedPage(stored?: string): Promise<{ page: Page; problems: string[] }> {
  const page = await env.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // Once the HTML is parsed (inline scripts run, no module script yet): #root's heading and text as painted first.
  await page.addInitScript((lang) => {
    if (lang) localStorage.setItem('lang', lang);
    document.addEventListener('readystatechange', () => {
      if (document.readyState !== 'interactive') return;
      const root = document.getElementById('root')!;
      const w = window as unknown as { parsed: { h1: Element | null; text: string; hidden: boolean; h1Style: string } };
      const h1 = root.querySelector('h1');
      w.parsed = {
        h1,
        text: root.innerText,
        hidden: getComputedStyle(root).visibility === 'hidden',
        h1Style: h1 ? getComputedStyle(h1).fontSize : '',
      };
    });
  }, stored ?? '');
  return { page, problems };
}

const parsedText = (page: Page) => page.evaluate(() => (window as unknown as { parsed: { text: string } }).parsed.text);
/** True while the heading painted first is still the document's heading (hydrated, not re-rendered). */
const sameHeading = (page: Page) =>
  page.evaluate(() => {
    const h1 = (window as unknown as { parsed: { h1: Element | null } }).parsed.h1;
    return !!h1 && h1.isConnected && document.querySelector('#root h1') === h1;
  });

describe('the built pages', () => {
  it("carry the screens' text: the landing, and the code-link entry and the web views as templates", () => {
    const index = dist('index.html');
    const root = /<div id="root" data-first="landing">([\s\S]*?)<\/div>\s*<template/.exec(index)?.[1] ?? '';
    for (const s of [en.landing.title, en.landing.step1, en.landing.googlePlay]) expect(root).toContain(s);
    expect(index).toMatch(new RegExp(`<template data-first="code">[^]*${en.scan.scanning}[^]*</template>`));
    expect(index).toMatch(
      new RegExp(`<template data-first="aboutUsApp">[^]*${en.about.title}[^]*${en.about.form.title}`),
    );
    expect(index).toMatch(new RegExp(`<template data-first="contactUsApp">[^]*${en.contact.title}`));
    expect(dist('first/aboutUsApp.lt-LT.html')).toContain(`<h1 class="webview-title">${lt.about.title}</h1>`);
    expect(dist('first/contactUsApp.zh-CN.html')).toContain(`<h1 class="webview-title">${zh.contact.title}</h1>`);
    expect(dist('first/contactUsApp.zh-CN.html')).toContain('<html lang="zh-CN" data-page="contactUsApp">');
  });
});

describe('without JavaScript', () => {
  it.each([
    ['/', en.landing.title],
    ['/aboutUsApp/lt-LT', lt.about.title],
    ['/contactUsApp/en-US', en.contact.title],
    [
      '/aboutUsApp/pt-BR',
      JSON.parse(readFileSync(new URL('../../locales/pt-PT.json', import.meta.url), 'utf8')).about.title,
    ],
  ])('%s shows its screen', async (path, heading) => {
    const context = await env.browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const res = await page.goto(env.product.base + path);
      expect(res?.status()).toBe(200);
      await expect.poll(() => page.getByRole('heading', { level: 1, name: heading }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('with JavaScript: painted from the HTML, then hydrated', () => {
  it('the landing: the heading painted first is the one the language choice updates', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(env.product.base + '/');
    expect(await parsedText(page)).toContain(en.landing.title);
    await mounted(page);
    await page.getByRole('combobox', { name: en.common.language }).selectOption('lt-LT');
    await expect.poll(() => page.locator('#root h1').innerText()).toBe(lt.landing.title);
    expect(await sameHeading(page)).toBe(true);
    await page.getByRole('link', { name: lt.landing.next }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/homeMap');
    expect(problems).toEqual([]);
  });

  it("the page's stylesheet is inline: fetched neither for the first paint nor again by a lazy screen that imports it", async () => {
    const page = await env.newPage();
    const sheets: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'stylesheet') sheets.push(new URL(r.url()).pathname);
    });
    await page.goto(env.product.base + '/');
    await mounted(page);
    const inline = await page.evaluate(() =>
      [...document.querySelectorAll('link[rel=stylesheet][disabled]')].map((l) => l.getAttribute('href')!),
    );
    expect(inline.length).toBeGreaterThan(0);
    // Styled from the inline copy: the page's colours are in force.
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--brand').trim()),
    ).not.toBe('');
    await page.getByRole('link', { name: en.landing.next }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/homeMap');
    // The map screen is up (its lazy chunk and stylesheets loaded).
    await expect
      .poll(
        () =>
          page
            .getByRole('status')
            .filter({ hasText: /No equipment (nearby|in this part of the map)/ })
            .count(),
        { timeout: 20_000 },
      )
      .toBe(1);
    await page.waitForLoadState('networkidle');
    expect(sheets.filter((s) => inline.includes(s))).toEqual([]);
  });

  it("the landing's store button: the build's (Google Play) painted, an iPhone's App Store once hydrated, link and all", async () => {
    const context = await env.browser.newContext({
      viewport: { width: 390, height: 844 },
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
    });
    try {
      const page = await context.newPage();
      await page.goto(env.product.base + '/');
      const link = page.getByRole('link', { name: en.landing.appStore });
      await expect.poll(() => link.count()).toBe(1);
      expect(await link.getAttribute('href')).toMatch(/^https:\/\/apps\.apple\.com\//);
    } finally {
      await context.close();
    }
  });

  it('the code link: the scanning state painted first, then the scan goes on', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(env.product.base + '/#/?qrcode=PWL-LIS-001');
    const text = await parsedText(page);
    expect(text).toContain(en.scan.scanning);
    expect(text).not.toContain(en.landing.title);
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#\/selectPakage/);
    expect(problems).toEqual([]);
  });

  for (const [url, heading, required] of [
    ['/#/aboutUsApp/en-US', en.about.title, en.about.form.nameRequired],
    ['/aboutUsApp/lt-LT', lt.about.title, lt.about.form.nameRequired],
  ] as const) {
    it(`${url}: the web view painted first is the one whose form then works, ids and all`, async () => {
      const { page, problems } = await watchedPage(url.startsWith('/#') ? 'lt-LT' : undefined);
      await page.goto(env.product.base + url);
      expect(await parsedText(page)).toContain(heading);
      expect(await parsedText(page)).not.toContain(en.landing.title);
      // Painted with its own stylesheets (the web view's title style), not restyled when its chunk arrives.
      expect(await page.evaluate(() => (window as unknown as { parsed: { h1Style: string } }).parsed.h1Style)).toBe(
        await page.evaluate(() => getComputedStyle(document.querySelector('#root h1')!).fontSize),
      );
      await expect.poll(() => page.evaluate(() => location.hash)).toBe(url.startsWith('/#') ? url.slice(1) : `#${url}`);
      await mounted(page);
      await page
        .getByRole('button', { name: url.startsWith('/#') ? en.about.form.submit : lt.about.form.submit })
        .click();
      const alert = page.getByRole('alert').filter({ hasText: required });
      await expect.poll(() => alert.count()).toBe(1);
      expect(await sameHeading(page)).toBe(true);
      // The ids the build rendered (useId) are the client's: the message the input points at is the one shown.
      const ok = await page.evaluate(() => {
        const input = document.querySelector<HTMLInputElement>('input[name="Name"]')!;
        const label = document.querySelector(`label[for="${input.id}"]`);
        const described = document.getElementById(input.getAttribute('aria-describedby') ?? '');
        return (
          !!label &&
          !!described &&
          described.id === input.id.replace(/-Name$/, '-err') &&
          document.activeElement === input
        );
      });
      expect(ok).toBe(true);
      expect(problems).toEqual([]);
    });
  }

  it('a stored other language: no English painted, the screen comes in that language', async () => {
    const { page, problems } = await watchedPage('zh-CN');
    await page.goto(env.product.base + '/');
    const parsed = await page.evaluate(
      () => (window as unknown as { parsed: { text: string; h1: Element | null } }).parsed,
    );
    expect(parsed.h1).toBeNull();
    expect(parsed.text.trim()).toBe('');
    await expect.poll(() => page.locator('#root h1').innerText()).toBe(zh.landing.title);
    expect(problems).toEqual([]);
  });

  it('a route without a prerendered screen: nothing of the landing painted, its own screen rendered', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(env.product.base + '/#/aboutUs');
    expect((await parsedText(page)).trim()).toBe('');
    await expect.poll(() => page.getByRole('heading', { level: 1, name: en.about.title }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });
});
