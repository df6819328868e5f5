// The information screens' server side: help per language, contact leads (four required fields with their own
// localised messages), the WeChat JS-SDK signature, and order receipts e-mailed through the SMTP adapter to a
// real SMTP peer (smtp-server on 127.0.0.1, an ephemeral port).
import { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxMailer, SmtpMailer } from '../src/modules/notify/mailer.ts';
import { jsSdkSignature, signableUrl, SandboxWeChat } from '../src/modules/content/wechat.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';

interface Received {
  from: string;
  to: string[];
  data: string;
}
const inbox: Received[] = [];
let smtp: SMTPServer;
let smtpPort = 0;
let b: Built;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  b = await build({ mailer: new SmtpMailer(`smtp://127.0.0.1:${smtpPort}`, 'Powerly <receipts@powerly.test>') });
  await cabinetsOnline(b, ['PWL-VNO-001']);
});
afterAll(async () => {
  await b?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

const form = (url: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  b.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(body).toString(),
  });

describe('help', () => {
  it('lists numbered items per language from the database, en-US for an unknown language', async () => {
    for (const [lang, first] of [
      ['en-US', 'How do I rent a power bank?'],
      ['zh-CN', '如何租借充电宝？'],
      ['lt-LT', 'Kaip išsinuomoti išorinę bateriją?'],
      ['pt-PT', 'Como alugo um power bank?'],
      ['es-ES', '¿Cómo alquilo una batería externa?'],
    ] as const) {
      const r = (await b.app.inject({ method: 'GET', url: `${API}/cdb/help/list?classId=help_${lang}` })).json();
      expect(r.code).toBe(0);
      expect(r.data).toHaveLength(5);
      expect(r.data[0]).toMatchObject({ pId: 1, pTitle: first, pContent: expect.any(String) });
      expect(r.data.map((h: { pId: number }) => h.pId)).toEqual([1, 2, 3, 4, 5]);
    }
    const fr = (await b.app.inject({ method: 'GET', url: `${API}/cdb/help/list?classId=help_fr-FR` })).json();
    expect(fr.data[0].pTitle).toBe('How do I rent a power bank?');
    const bad = await b.app.inject({ method: 'GET', url: `${API}/cdb/help/list?classId=faq_en-US` });
    expect(bad.statusCode).toBe(400);
  });
});

describe('contact leads (POST /crmLeads/add/public, JSON)', () => {
  const full = {
    Name: '  Ana  ',
    Email: 'ana@example.com ',
    Mobile: '+351 912 345 678',
    nation: 'Portugal',
    Content: 'Franchise in Porto?',
    source: 'powerly-web-app',
  };

  it('stores a lead with trimmed fields and answers Operation successful in the request language', async () => {
    const r = await b.app.inject({
      method: 'POST',
      url: '/crmLeads/add/public',
      headers: { lang: 'pt-PT' },
      payload: full,
    });
    expect(r.json()).toMatchObject({ code: 0, msg: 'Operação bem-sucedida', data: { id: expect.any(Number) } });
    const { rows } = await b.db.query<Record<string, string>>('select * from crm_leads where id = $1', [
      r.json().data.id,
    ]);
    expect(rows[0]).toMatchObject({
      name: 'Ana',
      email: 'ana@example.com',
      mobile: '+351 912 345 678',
      nation: 'Portugal',
      content: 'Franchise in Porto?',
      source: 'powerly-web-app',
      lang: 'pt-PT',
    });
  });

  it('refuses each blank required field with its own message and stores nothing', async () => {
    const before = Number((await b.db.query<{ n: number }>('select count(*)::int as n from crm_leads')).rows[0]!.n);
    const cases = [
      ['Name', 'Please enter your first name', '请输入您的名字'],
      ['Email', 'Please enter your e-mail', '请输入您的邮箱'],
      ['Mobile', 'Please enter your phone number', '请输入您的电话号码'],
      ['nation', 'Please enter your country', '请输入您的国家'],
    ] as const;
    for (const [field, en, zh] of cases) {
      const blank = await b.app.inject({
        method: 'POST',
        url: '/crmLeads/add/public',
        payload: { ...full, [field]: '   ' },
      });
      expect(blank.statusCode).toBe(400);
      expect(blank.json()).toMatchObject({ code: 400, msg: en });
      const { [field]: _omit, ...rest } = full;
      void _omit;
      const missing = await b.app.inject({
        method: 'POST',
        url: '/crmLeads/add/public',
        headers: { lang: 'zh-CN' },
        payload: rest,
      });
      expect(missing.json()).toMatchObject({ code: 400, msg: zh });
    }
    const after = Number((await b.db.query<{ n: number }>('select count(*)::int as n from crm_leads')).rows[0]!.n);
    expect(after).toBe(before);
  });
});

describe('WeChat JS-SDK config', () => {
  it("computes WeChat's documented example signature", () => {
    // The worked example of WeChat's JS-SDK documentation (appendix 1).
    expect(
      jsSdkSignature({
        ticket: 'sM4AOVdWfPE4DxkXGEs8VMCPGGVi4C3VM0P37wVUCFvkVAy_90u5h9nbSlYy3-Sl-HhTdfl2fzFy1AOcHKP7qg',
        noncestr: 'Wm3WZYTPz0wzccnW',
        timestamp: 1414587457,
        url: 'http://mp.weixin.qq.com?params=value',
      }),
    ).toBe('0f9de62fce790f9a083d5c99e95740ceb90c27ed');
    expect(signableUrl('https://app.example.com/?a=1#/home?qrcode=X')).toBe('https://app.example.com/?a=1');
  });

  it('signs the page URL without its hash using the sandbox credentials', async () => {
    const r = await form(`${API}/setting/js_config`, { url: 'https://app.powerly.test/?x=1#/homeMap' });
    const d = r.json().data;
    expect(r.json().code).toBe(0);
    expect(d).toMatchObject({ appId: 'wx_sandbox_powerly', timestamp: Math.floor(b.clock.now().getTime() / 1000) });
    const ticket = await new SandboxWeChat().jsapiTicket();
    expect(d.signature).toBe(
      jsSdkSignature({ ticket, noncestr: d.noncestr, timestamp: d.timestamp, url: 'https://app.powerly.test/?x=1' }),
    );
    expect((await form(`${API}/setting/js_config`, { url: 'javascript:alert(1)' })).statusCode).toBe(400);
  });
});

describe('order receipts by e-mail', () => {
  it('checks a real order and e-mails its receipt to the SMTP peer, in the request language', async () => {
    const token = await touristToken(b.app);
    const methods = (
      await b.app.inject({
        method: 'GET',
        url: `${API}/cdb/payment/method/list?qrcode=PWL-VNO-001`,
        headers: { token },
      })
    ).json().data;
    const rent = await form(
      `${API}/cdb/cabinet/useDepositToRent`,
      { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app), paymentId: methods[0].pId },
      { token },
    );
    const orderId: string = rent.json().data.outTradeNo;

    const check = () =>
      b.app.inject({ method: 'GET', url: `${API}/cdb/invoice/check?orderId=${orderId}`, headers: { token } });
    await waitFor(async () => (await check()).json().data, 'power bank out, receipt available');
    expect((await check()).json()).toMatchObject({
      code: 0,
      data: { orderId, shopName: 'GO9 Gedimino 9', ended: false, currency: 'EUR', deposit: 25, lastEmail: null },
    });

    // E-mail required (after trim) and plausible; nothing is sent or stored on refusal.
    const blank = await form(
      `${API}/cdb/invoice/sendCdbOrderReceipt`,
      { orderId, email: '   ' },
      { token, lang: 'lt-LT' },
    );
    expect(blank.json()).toMatchObject({ code: 400, msg: 'Įveskite savo el. paštą' });
    const bad = await form(`${API}/cdb/invoice/sendCdbOrderReceipt`, { orderId, email: 'not-an-address' }, { token });
    expect(bad.json()).toMatchObject({ code: 400, msg: 'Please enter a valid e-mail address' });
    expect(inbox).toHaveLength(0);

    const sent = await form(
      `${API}/cdb/invoice/sendCdbOrderReceipt`,
      { orderId, email: '  guest@example.com ' },
      { token, lang: 'es-ES' },
    );
    expect(sent.json()).toMatchObject({ code: 0, msg: 'El recibo se ha enviado a tu correo electrónico.' });
    expect(inbox).toHaveLength(1);
    const mail = inbox[0]!;
    expect(mail.to).toEqual(['guest@example.com']);
    expect(mail.from).toBe('receipts@powerly.test');
    expect(mail.data).toMatch(/^Subject: =\?UTF-8\?|^Subject: Tu recibo/m);
    const body = mail.data.replace(/=\r?\n/g, '');
    expect(body).toContain(orderId);
    expect(body).toContain('GO9 Gedimino 9');
    expect(body).toMatch(/N=C3=BAmero de pedido|Número de pedido/);
    expect((await check()).json().data.lastEmail).toBe('guest@example.com');

    // Another user's order is not theirs to receipt.
    const other = await touristToken(b.app);
    const foreign = await form(
      `${API}/cdb/invoice/sendCdbOrderReceipt`,
      { orderId, email: 'x@example.com' },
      { token: other },
    );
    expect(foreign.statusCode).toBe(404);
    expect(inbox).toHaveLength(1);
  });

  it('the default outbox adapter writes the message as an .eml file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'powerly-outbox-'));
    try {
      const m = new OutboxMailer(dir, 'Powerly <receipts@powerly.test>');
      const { messageId } = await m.send({ to: 'a@example.com', subject: 'Receipt', text: 'Hello' });
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      const eml = readFileSync(join(dir, files[0]!), 'utf8');
      expect(eml).toContain(`Message-ID: ${messageId}`);
      expect(eml).toContain('To: a@example.com');
      expect(eml).toContain('Hello');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
