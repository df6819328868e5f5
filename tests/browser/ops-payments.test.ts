// An agent's payment methods in the console, in Chromium against the real server: the owner sets up M-Pesa for an
// agent (a save without its required keys is refused naming them; with them it is on and the keys show as set,
// never their values) and the agent's riders are offered it at once; then ends one of a person's two memberships
// from the Staff screen. Axe finds no violation at 1280 and 768 px, and nothing scrolls sideways at 768 px.
import { describe, expect, it } from 'vitest';
import { person } from '../../server/test/ops/callers.ts';
import { touristToken } from '../../server/test/helper.ts';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();
const KEYS = {
  consumerKey: 'ck-browser-SECRET-1',
  consumerSecret: 'cs-browser-SECRET-2',
  shortCode: '174379',
  passkey: 'pk-browser-SECRET-3',
  callbackToken: 'cb-browser-SECRET-4',
};

describe('payment methods and memberships in the console', () => {
  it('switches M-Pesa on for an agent with its keys, and its riders are offered it without a restart', async () => {
    const { product, page, base } = env;
    for (const id of ['agent-k', 'agent-m']) await product.app.powerly.embed.saveAgent({ id, name: id, origins: [] });
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payment methods' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment methods' }).waitFor();
    await page.getByLabel('Agent').selectOption('agent-k');
    await page.getByText('This agent has no methods of its own yet').waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'mpesa', exact: true }) });
    await row.getByText('0 of 5 required keys set').waitFor();
    await row.getByRole('button', { name: 'Set up · mpesa' }).click();
    const form = page.getByRole('region', { name: 'mpesa for agent-k' });
    await expect.poll(() => form.getByRole('heading').evaluate((h) => h === document.activeElement)).toBe(true);
    await form.getByLabel("Offer it to this agent's riders").check();
    await form.getByLabel('Reason').fill('M-Pesa launches in Kenya');
    await form.getByRole('button', { name: 'Save' }).click();
    await form
      .getByRole('alert')
      .filter({
        hasText:
          'mpesa needs these keys before it can be switched on: consumerKey, consumerSecret, shortCode, passkey, callbackToken.',
      })
      .waitFor();
    for (const [k, v] of Object.entries(KEYS)) await form.getByLabel(k, { exact: true }).fill(v);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved. Riders are offered the change from now on.' }).waitFor();
    await row.getByText('5 of 5 required keys set').waitFor();
    await row.getByText('On').waitFor();
    // The values are gone from the page: each field is empty and says the key is set.
    for (const k of Object.keys(KEYS)) expect(await form.getByLabel(k, { exact: true }).inputValue()).toBe('');
    expect(await form.getByText('Required · set (hidden)').count()).toBe(5);
    expect(await page.content()).not.toContain('SECRET');
    expect(await axeViolations(page)).toEqual([]);

    const rider = await touristToken(product.app);
    const list = await product.app.inject({
      method: 'GET',
      url: '/cdb-app-api/v1/app/cdb/payment/method/list?currency=KES&agentId=agent-k',
      headers: { token: rider },
    });
    expect((list.json().data as Array<{ pId: string }>).map((m) => m.pId)).toContain('mpesa.agent-k:M-PESA');

    await page.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it("ends one of a person's two memberships from the Staff screen; the other stays", async () => {
    const { product, page } = env;
    await page.setViewportSize({ width: 1280, height: 800 });
    const id = await person(product, 'kim@powerly.local', { agentId: 'agent-k', role: 'support', venueIds: [] });
    await product.app.powerly.staff.repo.setMembership(id, { agentId: 'agent-m', role: 'read_only', venueIds: [] });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff' }).click();
    const kim = page.getByRole('row').filter({ hasText: 'kim@powerly.local' });
    await kim.getByText('Support · agent-k, Read only · agent-m').waitFor();
    await kim.getByRole('button', { name: 'Change role · kim' }).click();
    const change = page.getByRole('region', { name: 'Change the role of kim' });
    await change.getByLabel(/^Agent/).fill('agent-k');
    const end = page.getByRole('region', { name: 'End the membership at agent-k' });
    await end.getByLabel('Reason').fill('left the Kenyan team');
    await end.getByRole('button', { name: 'End membership' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click();
    await end.getByRole('status').filter({ hasText: 'The membership at agent-k has ended.' }).waitFor();
    await kim.getByText('Read only · agent-m').waitFor();
    expect(await kim.getByText('agent-k').count()).toBe(0);
    const log = await product.app.powerly.audit.list({ action: 'staff.membership-end', agents: null }, undefined, 10);
    expect(log.items.map((e) => e.reason)).toEqual(['left the Kenyan team']);
    expect(await axeViolations(page)).toEqual([]);
  });
});
