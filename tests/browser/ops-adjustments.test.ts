// Wallet credits and debits under four eyes in Chromium against the real server: a finance person requests a credit
// for a rider (nothing moves; their own request offers no decision), a second finance person opens it from the
// pending requests and approves it with a reason; the money is in the rider's wallet once and the rider's
// transactions show it. axe finds no violation, also at 768 px, and the page never scrolls sideways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Membership } from '../../src/core/opsAccess.ts';
import { sha256 } from '../../server/src/lib/ids.ts';
import { DEFAULT_AGENT } from '../../server/src/modules/ledger/repository.ts';
import { checkLedger } from '../../server/src/modules/wallet/reconcile.ts';
import { person } from '../../server/test/ops/callers.ts';
import { fundedRider } from '../../server/test/ops/withdrawals.ts';
import { axeViolations } from './axe.ts';
import { launchChromium, phonePage } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct({ simulator: false });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

/** A console page of a staff member with this membership, signed in (the session as the sign-in would have made it). */
async function signedIn(email: string, m: Membership) {
  const { app, clock } = product;
  const staffId = await person(product, email, m);
  const session = `browser-session-${staffId}-0123456789abcdef`;
  await app.powerly.staff.repo.insertSession({
    tokenHash: sha256(session),
    staffId,
    method: 'passkey',
    ip: '127.0.0.1',
    userAgent: 'chromium',
    at: clock.now(),
    expiresAt: new Date(clock.now().getTime() + 3_600_000),
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  await context.addCookies([{ name: 'ops_session', value: session, url: product.base }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

describe('wallet credits and debits, four eyes', () => {
  it("one person requests a credit, a different person approves it, and the rider's wallet has it once", async () => {
    const { app, clock } = product;
    const { token, user } = await fundedRider(app, clock, DEFAULT_AGENT, 1000);
    const balance = async () => (await app.powerly.ledger.walletOf(user.id, 'EUR', DEFAULT_AGENT)).balance;
    const finance: Membership = { agentId: DEFAULT_AGENT, role: 'finance', venueIds: [] };

    // The requester.
    const asker = await signedIn('rita@powerly.local', finance);
    const page = asker.page;
    await page.goto(`${product.base}/ops/#/staff`);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Wallet credits and debits' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Wallet credits and debits' }).waitFor();
    const form = page.getByRole('form', { name: 'Request a credit or debit' });
    await form.getByLabel('Rider').fill(String(user.id));
    await form.getByLabel('Agent of the wallet').fill(DEFAULT_AGENT);
    await form.getByLabel('Credit or debit').selectOption('credit');
    await form.getByLabel('Amount').fill('0');
    await form.getByLabel('Reason').fill('cable broke during the rental');
    await form.getByRole('button', { name: 'Send for approval' }).click();
    await form.getByRole('alert').filter({ hasText: 'Enter an amount greater than zero' }).waitFor();
    await form.getByLabel('Amount').fill('12.50');
    await form.getByRole('button', { name: 'Send for approval' }).click();
    const status = form.getByRole('status');
    await status.waitFor();
    const id = /Request (\d+) is waiting/.exec((await status.textContent()) ?? '')?.[1];
    expect(id).toBeTruthy();
    expect(await balance()).toBe(1000);
    // Their own request: shown, with no way to decide it.
    const own = page.getByRole('region', { name: `Request ${id}` });
    await own.waitFor();
    expect(await own.textContent()).toContain('A different person with the right to approve decides this request.');
    expect(await own.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await asker.context.close();

    // The approver: the pending requests list, the request, a reason, Approve.
    const approver = await signedIn('abel@powerly.local', finance);
    const p2 = approver.page;
    await p2.goto(`${product.base}/ops/#/wallet-adjustments`);
    const open = p2.getByRole('button', { name: `Request ${id}` });
    await open.waitFor();
    expect(await p2.getByRole('row').filter({ has: open }).textContent()).toMatch(
      /Credit €12\.50.*rita@powerly\.local.*Waiting for approval/,
    );
    await open.click();
    const detail = p2.getByRole('region', { name: `Request ${id}` });
    await detail.waitFor();
    await expect.poll(() => p2.evaluate(() => document.activeElement?.textContent)).toBe(`Request ${id}`);
    const approve = detail.getByRole('button', { name: 'Approve' });
    expect(await approve.isDisabled()).toBe(true); // a reason first
    await detail.getByLabel('Reason').fill('checked the rental timeline');
    await approve.click();
    await p2
      .getByRole('status')
      .filter({ hasText: `Request ${id} was approved; the money moved.` })
      .waitFor();
    await expect.poll(balance).toBe(2250);
    expect(await axeViolations(p2)).toEqual([]);
    await p2.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(p2)).toEqual([]);
    expect(await p2.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await approver.context.close();
    expect(await checkLedger(product.db)).toEqual([]);

    // The rider's transactions show the credit.
    const rider = await phonePage(browser);
    await rider.addInitScript((t) => localStorage.setItem('token', t), token);
    await rider.goto(`${product.base}/#/wallet_list?currency=EUR&agentId=${DEFAULT_AGENT}`);
    const movements = rider.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
    await expect.poll(async () => (await movements.allTextContents()).join('\n')).toMatch(/Adjustment by support/);
    await rider.context().close();
  });
});
