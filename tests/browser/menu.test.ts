// The app shell in Chromium against the real server: walk the side menu (and #/mine's links) through every
// information screen in two languages and check that no text key is ever shown raw; the contact form's
// required-field messages and stored lead; a receipt e-mailed from #/invoiceOrderDtl arriving at a real SMTP peer.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SmtpMailer } from '../../server/src/modules/notify/mailer.ts';
import { cabinetsOnline, cardToken, touristToken, waitFor } from '../../server/test/helper.ts';
import { launchChromium } from './chromium.ts';
import { startProduct, type RunningProduct } from './product.ts';

const API = '/cdb-app-api/v1/app';
let product: RunningProduct;
let browser: Browser;
let smtp: SMTPServer;
const inbox: { to: string[]; data: string }[] = [];

function flatten(obj: unknown, prefix = '', out: string[] = []): string[] {
  if (obj && typeof obj === 'object')
    for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  else out.push(prefix);
  return out;
}
const KEYS = flatten(JSON.parse(readFileSync(new URL('../../locales/en-US.json', import.meta.url), 'utf8')));
const NAMESPACES = [...new Set(KEYS.map((k) => k.split('.')[0]!))];
const RAW_KEY = new RegExp(`\\b(${NAMESPACES.join('|')})\\.[A-Za-z][\\w.]*`, 'g');

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = (smtp.server.address() as AddressInfo).port;
  product = await startProduct({
    mailer: new SmtpMailer(`smtp://127.0.0.1:${port}`, 'Powerly <receipts@powerly.test>'),
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await product?.close();
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
});

/** A page with a tourist session in `lang`. */
async function sessionPage(lang: string, token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: lang });
  await context.addInitScript(
    ([tk, l]) => {
      if (!sessionStorage.getItem('seeded')) {
        localStorage.setItem('token', tk!);
        localStorage.setItem('userType', 'tourist_login');
        localStorage.setItem('lang', l!);
        sessionStorage.setItem('seeded', '1');
      }
    },
    [token, lang],
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

async function expectNoRawKeys(page: Page, where: string) {
  const text = await page.evaluate(() => document.body.innerText);
  expect(text.match(RAW_KEY) ?? [], `raw text keys on ${where}`).toEqual([]);
  expect(text.trim().length, `text on ${where}`).toBeGreaterThan(0);
}

async function heading(page: Page, name: string) {
  await expect.poll(() => page.getByRole('heading', { level: 1, name }).count(), { timeout: 15_000 }).toBe(1);
}

const TEXT = {
  'en-US': {
    menu: 'Open menu',
    mine: 'Me',
    wallet: 'Wallet',
    orders: 'Orders',
    about: 'About us',
    contact: 'Contact us',
    settings: 'Settings',
    help: 'Help',
    usage: 'How to use the Wi-Fi box',
    shop: 'Shop',
    buyEquipment: 'Buy equipment',
    join: 'Become a partner',
    firstHelp: 'How do I rent a power bank?',
    logout: 'Log out',
    nameRequired: 'Please enter your first name',
    ok: 'Operation successful',
    send: 'Send',
    notOpen: 'This service is not open yet',
    buy: 'Buy now',
  },
  'zh-CN': {
    menu: '打开菜单',
    mine: '我的',
    wallet: '钱包',
    orders: '订单',
    about: '关于我们',
    contact: '联系我们',
    settings: '设置',
    help: '帮助',
    usage: '随身 Wi-Fi 使用说明',
    shop: '商城',
    buyEquipment: '购买设备',
    join: '成为合作伙伴',
    firstHelp: '如何租借充电宝？',
    logout: '退出登录',
    nameRequired: '请输入您的名字',
    ok: '操作成功',
    send: '提交',
    notOpen: '该服务暂未开放',
    buy: '立即购买',
  },
} as const;

describe('the side menu through every screen', () => {
  for (const lang of ['en-US', 'zh-CN'] as const) {
    it(`walks every entry in ${lang} with no raw text key`, async () => {
      const T = TEXT[lang];
      const token = await touristToken(product.app);
      const page = await sessionPage(lang, token);
      await page.goto(`${product.base}/#/mine`);
      await heading(page, T.mine);
      await expectNoRawKeys(page, '#/mine');

      const viaMenu = async (entry: string) => {
        await page.getByRole('button', { name: T.menu }).first().click();
        const menu = page.locator('dialog.side-menu[open]');
        await expect.poll(() => menu.count()).toBe(1);
        await expectNoRawKeys(page, 'the side menu');
        await menu.getByRole('button', { name: entry, exact: true }).click();
        await expect.poll(() => page.locator('dialog.side-menu[open]').count()).toBe(0);
      };
      const back = () => page.goto(`${product.base}/#/mine`).then(() => heading(page, T.mine));

      // The menu: the tourist's name, then each entry.
      await page.getByRole('button', { name: T.menu }).click();
      const panel = page.locator('dialog.side-menu[open]');
      await expect.poll(() => panel.textContent()).toContain(lang === 'en-US' ? 'Guest' : '游客');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('dialog.side-menu[open]').count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(T.menu); // focus back on the opener

      for (const [entry, title] of [
        [T.about, T.about],
        [T.contact, T.contact],
        [T.settings, T.settings],
        [T.help, T.help],
        [T.orders, null],
        [T.wallet, null],
      ] as const) {
        await viaMenu(entry);
        if (title) await heading(page, title);
        else {
          // Another slice's screen (or not-found until it lands): wait until it has rendered its heading.
          await expect
            .poll(async () => (await page.locator('h1').allTextContents()).join('|'))
            .not.toMatch(new RegExp(`^(${T.mine})?$`));
        }
        if (entry === T.help) await expect.poll(() => page.getByText(T.firstHelp).count()).toBe(1);
        await expectNoRawKeys(page, `${entry}`);
        await back();
      }

      // #/mine's own links: usage carousel and the static shop.
      await page.getByRole('button', { name: T.usage }).click();
      await heading(page, T.usage);
      await expectNoRawKeys(page, '#/usage');
      await back();
      // No equipment is configured for sale: no entry leads to the shop.
      expect(await page.getByRole('button', { name: T.buyEquipment }).count()).toBe(0);

      // The join-us box leads to the franchise form: each required field has its message; a full form is stored.
      await viaMenu(T.join);
      await heading(page, T.about);
      await page.getByRole('button', { name: T.send, exact: true }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(T.nameRequired);
      const form = page.locator('form#join');
      await form.locator('[name=Name]').fill(`  Ana ${lang} `);
      await form.locator('[name=Email]').fill('ana@example.com');
      await form.locator('[name=Mobile]').fill('+351 912 345 678');
      await form.locator('[name=nation]').fill('Portugal');
      await page.getByRole('button', { name: T.send, exact: true }).click();
      // The form says in words that stay who will be answered, and where.
      await expect.poll(() => page.locator('.form-sent').textContent()).toContain('ana@example.com');
      const { rows } = await product.db.query<{ lang: string }>('select lang from crm_leads where name = $1', [
        `Ana ${lang}`,
      ]);
      expect(rows).toEqual([{ lang }]);
      await expectNoRawKeys(page, '#/aboutUs after sending');

      // Logout: confirm, the session is gone.
      await back();
      await page.getByRole('button', { name: T.menu }).click();
      await page.locator('dialog.side-menu[open]').getByRole('button', { name: T.logout, exact: true }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: T.logout }).click();
      await expect.poll(() => page.evaluate(() => localStorage.getItem('token'))).toBe('');
      await page.context().close();
    });
  }

  it('switching the language on #/setting changes every text and the currency at once', async () => {
    const page = await sessionPage('en-US', await touristToken(product.app));
    await page.goto(`${product.base}/#/setting`);
    await heading(page, 'Settings');
    await expect.poll(() => page.getByTestId('currency-sample').textContent()).toBe('Dollar · $1,234.56');
    await page.getByRole('button', { name: /Language/ }).click();
    await page.getByRole('dialog').getByLabel('Português').check();
    await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
    await heading(page, 'Definições');
    await expect.poll(() => page.getByTestId('currency-sample').textContent()).toMatch(/^Euro · 1234,56\s€$/);
    await expectNoRawKeys(page, '#/setting in pt-PT');
    await page.context().close();
  });
});

describe('a receipt by e-mail', () => {
  it('sends the receipt of a real order from #/invoiceOrderDtl to the SMTP peer', async () => {
    await cabinetsOnline(product, ['PWL-VNO-001']);
    const token = await touristToken(product.app);
    const methods = (
      await product.app.inject({
        method: 'GET',
        url: `${API}/cdb/payment/method/list?qrcode=PWL-VNO-001`,
        headers: { token },
      })
    ).json().data;
    const rent = await product.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        qrcode: 'PWL-VNO-001',
        stripeToken: await cardToken(product.app),
        paymentId: String(methods[0].pId),
      }).toString(),
    });
    const orderId: string = rent.json().data.outTradeNo;
    await waitFor(
      async () =>
        (
          await product.app.inject({
            method: 'GET',
            url: `${API}/cdb/invoice/check?orderId=${orderId}`,
            headers: { token },
          })
        ).json().data,
      'receipt available',
    );

    const page = await sessionPage('en-US', token);
    await page.goto(`${product.base}/#/invoiceOrderDtl?orderId=${orderId}`);
    await heading(page, 'Receipt');
    await expect.poll(() => page.locator('.receipt').textContent()).toContain(orderId);
    await page.getByRole('button', { name: 'Send receipt' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Please enter your e-mail');
    expect(inbox).toHaveLength(0);
    await page.getByLabel('E-mail address').fill('  guest@example.com  ');
    await page.getByRole('button', { name: 'Send receipt' }).click();
    await expect.poll(() => page.getByText('The receipt was sent to guest@example.com.').count()).toBe(1);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.to).toEqual(['guest@example.com']);
    expect(inbox[0]!.data.replace(/=\r?\n/g, '')).toContain(orderId);
    await expectNoRawKeys(page, '#/invoiceOrderDtl');
    await page.context().close();
  });
});
