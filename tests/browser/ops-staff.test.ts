// Staff administration in Chromium against the real server: the owner joins with a passkey, changes a person's
// role from the Staff screen (the row shows the new role), invites a person and revokes the invitation with a
// reason (its link no longer works), edits a Wi-Fi region's countries; axe finds no violation at 1280 and 768 px.
import { describe, expect, it } from 'vitest';
import { person } from '../../server/test/ops/callers.ts';
import { axeViolations } from './axe.ts';
import { consoleInChromium } from './opsConsole.ts';

const env = consoleInChromium();

describe('staff administration in the console', () => {
  it('changes a role, invites and revokes an invitation from the Staff screen; the change form takes the focus', async () => {
    const { product, page, base } = env;
    const token = await product.app.powerly.staff.seedOwner('owner@powerly.local', 'Olivia Owner');
    await person(product, 'sam@powerly.local', { agentId: '*', role: 'support', venueIds: [] });
    await page.goto(`${base}/ops/#/invitation?token=${encodeURIComponent(token!)}`);
    await page.getByRole('button', { name: 'Create passkey and join' }).click();
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff' }).click();
    await page.getByRole('heading', { level: 1, name: 'Staff' }).waitFor();

    // Nobody changes their own role: the owner's row has no such button.
    const samRow = page.getByRole('row').filter({ hasText: 'sam@powerly.local' });
    await samRow.getByText('Support · all agents').waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'owner@powerly.local' }).getByRole('button').count()).toBe(0);
    await samRow.getByRole('button', { name: 'Change role · sam' }).click();
    const change = page.getByRole('region', { name: 'Change the role of sam' });
    await expect.poll(() => change.getByRole('heading').evaluate((h) => h === document.activeElement)).toBe(true);
    await change.getByLabel('Role').selectOption('finance');
    await change.getByLabel('Reason').fill('moved to finance');
    await change.getByRole('button', { name: 'Save' }).click();
    await change.getByRole('status').filter({ hasText: 'The role was changed.' }).waitFor();
    await samRow.getByText('Finance · all agents').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const invite = page.getByRole('region', { name: 'Invite a person' });
    await invite.getByLabel('E-mail', { exact: true }).fill('tom@powerly.local');
    await invite.getByLabel('Name', { exact: true }).fill('Tom Tech');
    await invite.getByRole('combobox', { name: /^Role/ }).selectOption('field_technician');
    await invite.getByRole('combobox', { name: /^Signs in with/ }).selectOption('passkey');
    await invite.getByLabel('Reason').fill('new technician');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await invite.getByRole('status').filter({ hasText: 'The invitation was sent to tom@powerly.local.' }).waitFor();

    const invitations = page.getByRole('region', { name: 'Invitations' });
    const tomRow = invitations.getByRole('row').filter({ hasText: 'tom@powerly.local' });
    await tomRow.getByText('Pending').waitFor();
    await tomRow.getByRole('button', { name: 'Revoke · tom@powerly.local' }).click();
    const revoke = invitations.getByRole('region', { name: 'Revoke the invitation of tom@powerly.local' });
    await revoke.getByLabel('Reason').fill('hired someone else');
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await revoke.getByRole('status').filter({ hasText: 'The invitation was revoked.' }).waitFor();
    await tomRow.getByText('Revoked').waitFor();
    const log = await product.app.powerly.audit.list(
      { action: 'staff.invitation-revoke', agents: null },
      undefined,
      10,
    );
    expect(log.items.map((e) => e.reason)).toEqual(['hired someone else']);

    await page.setViewportSize({ width: 768, height: 1024 });
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it("edits a Wi-Fi region's countries with a reason", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wi-Fi line' }).click();
    const regions = page.getByRole('region', { name: 'Regions' });
    await regions.getByRole('button', { name: 'Edit europe' }).click();
    const edit = page.getByRole('region', { name: 'Edit region europe' });
    const countries = edit.getByLabel(/^Countries, one a line/);
    await countries.fill(`${await countries.inputValue()}\nIT;Italy;Europe/Rome`);
    await edit.getByLabel('Reason').fill('Italy launches');
    await edit.getByRole('button', { name: 'Save region' }).click();
    await regions.getByRole('row').filter({ hasText: 'Italy (IT)' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });
});
