// The disputes queue in Chromium against the real server, broker and cabinet simulator: two riders say they returned
// their power banks, and no cabinet recorded it. A support person of the agent (console at 768 px) opens the queue,
// reads each claim's evidence, rejects one with a message (the rider's order screen shows it) and accepts the other
// (the rental ends at the rider's time, the fee by its plan, the ledger balanced). axe finds no violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { sha256 } from '../../server/src/lib/ids.ts';
import { checkLedger } from '../../server/src/modules/wallet/reconcile.ts';
import { cardToken, touristToken } from '../../server/test/helper.ts';
import { axeViolations } from './axe.ts';
import { launchChromium, phonePage } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 3_600_000;
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium();
  await product.app.powerly.embed.saveAgent({ id: 'agent-baltic', name: 'Baltic', origins: [] });
  await product.db.query(`update venues set agent_id = 'agent-baltic' where id = 'v-vno-gedimino'`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await product?.close();
});

/** A rider rents at Vilnius with the test card; the bank is out. */
async function rents(device: string) {
  const { app } = product;
  const token = await touristToken(app, device);
  const rent = await app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(app), paymentId: 'card-sandbox' },
  });
  const orderId: string = rent.json().data.outTradeNo;
  await expect
    .poll(
      async () =>
        (
          await app.inject({
            method: 'GET',
            url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
            headers: { token },
          })
        ).json().data.pZujie,
      { timeout: 30_000 },
    )
    .toBe(1);
  return { token, orderId };
}

/** The rider says it went back to PWL-VNO-001 at `at`: no record says so, the claim waits for the desk. */
async function claims(r: { token: string; orderId: string }, at: Date) {
  const res = await product.app.inject({
    method: 'POST',
    url: `${API}/cdb/mine/order/claimReturn`,
    headers: { token: r.token },
    payload: { orderId: r.orderId, cabinetId: 'PWL-VNO-001', at: at.toISOString() },
  });
  expect(res.json().data, res.body).toMatchObject({ state: 'open' });
  return String(res.json().data.id);
}

async function supportConsole(): Promise<Page> {
  const staff = product.app.powerly.staff.repo;
  const s = await staff.create('sue@baltic.example', 'Sue Support', product.clock.now());
  await staff.setMembership(s.id, { agentId: 'agent-baltic', role: 'support', venueIds: [] });
  const token = 'disputes-browser-session-0123456789abcdef';
  await staff.insertSession({
    tokenHash: sha256(token),
    staffId: s.id,
    method: 'passkey',
    ip: '127.0.0.1',
    userAgent: 'chromium',
    at: product.clock.now(),
    expiresAt: new Date(product.clock.now().getTime() + 3_600_000),
  });
  const context = await browser.newContext({ viewport: { width: 768, height: 1024 }, locale: 'en-US' });
  await context.addCookies([{ name: 'ops_session', value: token, url: product.base }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

describe('the disputes queue', () => {
  it('support reads the evidence, rejects one claim with a message the rider sees and accepts the other', async () => {
    const first = await rents('dispute-browser-1');
    const second = await rents('dispute-browser-2');
    const { rows } = await product.db.query<{ borrowed_at: Date }>('select borrowed_at from orders where id = $1', [
      second.orderId,
    ]);
    const back = new Date(new Date(rows[0]!.borrowed_at).getTime() + HOUR + 30 * 60_000);
    product.clock.advance(3 * HOUR);
    const rejectId = await claims(first, back);
    const acceptId = await claims(second, back);

    const desk = await supportConsole();
    await desk.goto(`${product.base}/ops/#/disputes`);
    await desk.getByRole('heading', { level: 1, name: 'Disputes' }).waitFor();
    const openReject = desk.getByRole('button', { name: `Dispute ${rejectId}` });
    await openReject.waitFor();
    expect(await desk.getByRole('row').filter({ has: openReject }).textContent()).toMatch(
      new RegExp(`PWL-VNO-001.*${first.orderId}.*In use.*Open`),
    );
    expect(await axeViolations(desk)).toEqual([]);

    // Reject: the records say nothing; the rider is told why.
    await openReject.click();
    const detail = desk.getByRole('region', { name: `Dispute ${rejectId}` });
    await detail.waitFor();
    await expect.poll(() => desk.evaluate(() => document.activeElement?.textContent)).toBe(`Dispute ${rejectId}`);
    expect(await detail.textContent()).toContain('Return of the power bankNone recorded');
    const form = detail.getByRole('form', { name: 'Decide the dispute' });
    await form.getByRole('button', { name: 'Reject' }).click();
    expect(await form.getByLabel('Message to the rider').evaluate((el: HTMLTextAreaElement) => el.validity.valid)).toBe(
      false,
    ); // the form validates first
    const message = 'No cabinet recorded your power bank; please return it to any cabinet.';
    await form.getByLabel('Message to the rider').fill(message);
    await form.getByLabel('Evidence note (for the desk)').fill('no returned event, cabinet online all along');
    await form.getByLabel('Reason').fill('records contradict the claim');
    await form.getByRole('button', { name: 'Reject' }).click();
    await detail
      .getByRole('status')
      .filter({ hasText: `Dispute ${rejectId} was rejected; the rider sees your message.` })
      .waitFor();
    await expect.poll(() => detail.getByRole('form').count()).toBe(0);
    expect(await detail.textContent()).toContain('sue@baltic.example');
    expect(await axeViolations(desk)).toEqual([]);

    const rider = await phonePage(browser);
    await rider.addInitScript((t) => localStorage.setItem('token', t), first.token);
    await rider.goto(`${product.base}/#/orderDetail?orderId=${first.orderId}`);
    await expect.poll(() => rider.getByTestId('return-claim').getByRole('status').textContent()).toContain(message);
    await rider.context().close();

    // Accept: the rental ends at the rider's time (1 h 30 min: €2), not the 3 h that passed.
    await desk.getByRole('button', { name: `Dispute ${acceptId}` }).click();
    const other = desk.getByRole('region', { name: `Dispute ${acceptId}` });
    await other.waitFor();
    const decide = other.getByRole('form', { name: 'Decide the dispute' });
    await decide
      .getByLabel('Message to the rider')
      .fill('The venue found your power bank: you pay until the time you gave.');
    await decide.getByLabel('Evidence note (for the desk)').fill('venue staff photo, slot 3');
    await decide.getByLabel('Reason').fill('venue confirmed');
    await decide.getByRole('button', { name: 'Accept' }).click();
    await other
      .getByRole('status')
      .filter({ hasText: `Dispute ${acceptId} was accepted; the rental is put right.` })
      .waitFor();
    await expect.poll(() => other.textContent()).toContain('Returned');
    const {
      rows: [o],
    } = await product.db.query<{ zujie: number; fee: string }>('select zujie, fee from orders where id = $1', [
      second.orderId,
    ]);
    expect(o).toMatchObject({ zujie: 3 });
    expect(Number(o!.fee)).toBe(200);
    expect(await checkLedger(product.db)).toEqual([]);
    // The open queue has neither any more.
    await expect.poll(() => desk.getByRole('button', { name: /^Dispute \d+$/ }).count()).toBe(0);
    expect(await axeViolations(desk)).toEqual([]);
    expect(await desk.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await desk.context().close();
  });
});
