// The withdrawals queue in Chromium against the real server: a finance person of the agent opens an awaiting bank
// payout with the payee's fields, records the bank transfer's reference with a reason, and the rider's wallet
// movements show the withdrawal awaiting payout before and paid after; axe finds no violation, also at 768 px.
// Dead jobs and the cabinet inbox: a platform owner acts on them, each with a reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Membership } from '../../src/core/opsAccess.ts';
import { sha256 } from '../../server/src/lib/ids.ts';
import { DEFAULT_AGENT } from '../../server/src/modules/ledger/repository.ts';
import { person } from '../../server/test/ops/callers.ts';
import { awaitingWithdrawal, fundedRider } from '../../server/test/ops/withdrawals.ts';
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

describe('the withdrawals queue', () => {
  it("finance records a manual payout and the rider's wallet shows it paid", async () => {
    const { app, clock } = product;
    // The rider: a wallet of 50 € and a SEPA withdrawal of 20 € awaiting payout.
    const { token, user } = await fundedRider(app, clock, DEFAULT_AGENT, 5000);
    const id = await awaitingWithdrawal(product, user.id, DEFAULT_AGENT, 2000);
    const rider = await phonePage(browser);
    await rider.addInitScript((t) => localStorage.setItem('token', t), token);
    const movements = rider.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
    await rider.goto(`${product.base}/#/wallet_list?currency=EUR&agentId=${DEFAULT_AGENT}`);
    await expect
      .poll(async () => (await movements.allTextContents()).join('\n'))
      .toMatch(/Withdrawal[^\n]*Awaiting bank transfer/);

    // A finance person of the agent, signed in.
    const { context, page } = await signedIn('fiona@powerly.local', {
      agentId: DEFAULT_AGENT,
      role: 'finance',
      venueIds: [],
    });
    await page.goto(`${product.base}/ops/#/withdrawals`);
    await page.getByRole('heading', { level: 1, name: 'Withdrawals' }).waitFor();
    const open = page.getByRole('button', { name: id });
    await open.waitFor();
    // Found by the rider's id (phone and e-mail work the same way); the export downloads the same search.
    await page.getByLabel('Withdrawal, rider id, phone or e-mail').fill(String(user.id));
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))
      .toContain(`q=${user.id}`);
    await expect.poll(() => page.getByRole('row').count()).toBe(2); // the header and this rider's one withdrawal
    await open.waitFor();
    expect(await page.getByRole('row').filter({ has: open }).textContent()).toMatch(
      /€20\.00.*Ana Silva.*Awaiting payout/,
    );
    expect(await axeViolations(page)).toEqual([]);

    await open.click();
    const detail = page.getByRole('region', { name: `Withdrawal ${id}` });
    await detail.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Withdrawal ${id}`);
    expect(await detail.textContent()).toContain('LT121000011101001000');
    const manual = detail.getByRole('form', { name: 'Record bank transfer' });
    await manual.getByRole('button', { name: 'Record bank transfer' }).click();
    expect(await manual.getByLabel('Bank reference').evaluate((el: HTMLInputElement) => el.validity.valid)).toBe(false); // the form validates first
    await manual.getByLabel('Bank reference').fill('SEPA-2026-0042');
    await manual.getByLabel('Reason').fill('paid from the EUR operating account');
    await manual.getByRole('button', { name: 'Record bank transfer' }).click();
    await detail
      .getByRole('status')
      .filter({ hasText: `Withdrawal ${id} is recorded as paid.` })
      .waitFor();
    await expect.poll(() => detail.textContent()).toContain('SEPA-2026-0042');
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);

    expect(await app.powerly.wallet.findWithdrawal(id)).toMatchObject({
      status: 'paid',
      bank_reference: 'SEPA-2026-0042',
      settled_by: 'fiona@powerly.local',
    });
    // The rider's wallet: the withdrawal is paid out (the server's live event refreshes the list; a reload shows it too).
    await rider.reload();
    await expect.poll(async () => (await movements.allTextContents()).join('\n')).toMatch(/Withdrawal[^\n]*Paid out/);

    // The rider's page in the console: found by id, its details; finance may read but not block (no form).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Riders' }).click();
    await page.getByLabel('Rider id').fill(String(user.id));
    await page.getByRole('button', { name: 'Find' }).click();
    const card = page.getByRole('region', { name: `Rider ${user.id}` });
    await card.waitFor();
    expect(await card.textContent()).toContain(DEFAULT_AGENT);
    expect(await card.getByRole('button', { name: 'Block rider' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('a platform owner retries a dead job from the Dead jobs screen, with a reason, at 768 px', async () => {
    const { rows } = await product.db.query<{ id: string }>(
      `insert into jobs (kind, payload, run_at, attempts, last_error, dead_at) values ('payment.compensate', '{"paymentId":"P1"}', $1, 8, 'provider timeout', $1) returning id`,
      [product.clock.now()],
    );
    const id = String(rows[0]!.id);
    const { context, page } = await signedIn('olga@powerly.local', { agentId: '*', role: 'owner', venueIds: [] });
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.goto(`${product.base}/ops/#/jobs`);
    await page.getByRole('heading', { level: 1, name: 'Dead jobs' }).waitFor();
    const retry = page.getByRole('button', { name: `Retry job ${id}` });
    await retry.click();
    await page.getByRole('alert').filter({ hasText: 'Type the reason first' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('ops-job-reason');
    await page.getByLabel('Reason').fill('the provider is reachable again');
    await retry.click();
    await page
      .getByRole('status')
      .filter({ hasText: `Job ${id} is due again.` })
      .waitFor();
    await expect.poll(() => retry.count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect((await product.db.query('select dead_at, attempts from jobs where id = $1', [id])).rows[0]).toMatchObject({
      dead_at: null,
      attempts: 0,
    });
    await context.close();
  });

  it('a platform owner retries a dead cabinet event and releases a quarantined power bank from the Cabinet inbox, at 768 px', async () => {
    const now = product.clock.now();
    await product.db.query(
      `insert into cabinet_events (id, cabinet_id, type, payload, received_at, state, attempts, last_error) values ('PWL-VNO-001:ev-browser', 'PWL-VNO-001', 'returned', '{"slot":4}', $1, 'dead', 20, 'database says no')`,
      [now],
    );
    await product.db.query(
      `insert into powerbanks (id, state, cabinet_id, slot, seen_at) values ('PB-STRAY-1', 'quarantined', 'PWL-VNO-001', 31, $1)`,
      [now],
    );
    await product.app.powerly.cabinets.reject('PWL-NOBODY', 'unknown-cabinet', '{"v":2}');
    const { context, page } = await signedIn('otto@powerly.local', { agentId: '*', role: 'owner', venueIds: [] });
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.goto(`${product.base}/ops/#/cabinet-inbox`);
    await page.getByRole('heading', { level: 1, name: 'Cabinet inbox' }).waitFor();
    const retry = page.getByRole('button', { name: 'Retry event PWL-VNO-001:ev-browser' });
    await retry.waitFor();
    expect(await page.getByRole('row').filter({ has: retry }).textContent()).toContain('database says no');
    expect(await page.getByRole('row').filter({ hasText: 'PWL-NOBODY' }).textContent()).toMatch(/unknown-cabinet\s*1/);
    expect(await axeViolations(page)).toEqual([]);
    await retry.click();
    await page.getByRole('alert').filter({ hasText: 'Type the reason first' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('ops-inbox-reason');
    await page.getByLabel('Reason').fill('the database is back');
    await retry.click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Event PWL-VNO-001:ev-browser is waiting to be processed again.' })
      .waitFor();
    await expect.poll(() => retry.count()).toBe(0);
    const release = page.getByRole('button', { name: 'Release power bank PB-STRAY-1' });
    expect(await page.getByRole('row').filter({ has: release }).textContent()).toContain('PWL-VNO-001, slot 31');
    await release.click();
    await page.getByRole('status').filter({ hasText: 'Power bank PB-STRAY-1 can be lent from where it is.' }).waitFor();
    await expect.poll(() => release.count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect((await product.db.query(`select state from powerbanks where id = 'PB-STRAY-1'`)).rows[0]).toEqual({
      state: 'in_cabinet',
    });
    await context.close();
  });
});
