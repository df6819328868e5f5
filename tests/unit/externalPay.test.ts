// The rules of paying with a method beyond the card (src/pay/external.ts): the server's action, the waits of
// what the payer must give, and what each action does in the page.
import { describe, expect, it, vi } from 'vitest';
import { externalAction, payerFields, perform, platformOf, pollPlan } from '../../src/pay/external.ts';

describe('external methods', () => {
  it('reads the action of an external client secret, and nothing from a Stripe one', () => {
    expect(externalAction('ext:{"kind":"push"}')).toEqual({ kind: 'push' });
    expect(externalAction('pi_123_secret_abc')).toBeNull();
    expect(externalAction('ext:{not json')).toBeNull();
  });

  it('waits as long as each method allows', () => {
    expect(pollPlan('Flutterwave_Mobile')).toEqual({ intervalMs: 1000, tries: 10 });
    expect(pollPlan('SumUpOnlinePayment')).toEqual({ intervalMs: 1000, tries: 10 });
    expect(pollPlan('M-PESA').autoConfirmMs).toBe(20_000);
    expect(pollPlan('WeChat_MP', true).intervalMs).toBe(2000);
    expect(pollPlan('WeChat_MP')).toEqual({ intervalMs: 1000, tries: 30 });
  });

  it('asks for the phone, the e-mail, the card and the agreement where the method needs them', () => {
    expect(payerFields({ kind: 'push', pPaymentType: 'M-PESA' }, false)).toEqual({
      phone: true,
      email: false,
      card: false,
      agreement: false,
    });
    expect(payerFields({ kind: 'card', pPaymentType: 'Monri_WebPay' }, false)).toMatchObject({
      email: true,
      card: true,
    });
    expect(payerFields({ kind: 'jsapi', pPaymentType: 'WeChat_MP', hold: true }, true).agreement).toBe(true);
    expect(payerFields({ kind: 'jsapi', pPaymentType: 'WeChat_MP', hold: true }, false).agreement).toBe(false);
  });

  it('knows the WeChat and Alipay browsers', () => {
    expect(platformOf('Mozilla/5.0 MicroMessenger/8.0')).toBe('wechat');
    expect(platformOf('Mozilla/5.0 AlipayClient/10.5')).toBe('alipay');
    expect(platformOf('Mozilla/5.0 Chrome/120')).toBe('web');
    // A phone's own browser: the mobile-browser payments (WeChat Pay H5, Alipay WAP) are offered there.
    expect(
      platformOf('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36'),
    ).toBe('mobile');
    expect(
      platformOf(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('mobile');
  });

  it('posts a form action to the provider with its fields', async () => {
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => undefined);
    expect(
      await perform({
        kind: 'form',
        url: 'https://secure.paygate.co.za/payweb3/process.trans',
        fields: { PAY_REQUEST_ID: 'R1', CHECKSUM: 'c' },
      }),
    ).toBe(true);
    const form = document.querySelector('form')!;
    expect(form.method.toUpperCase()).toBe('POST');
    expect(form.action).toBe('https://secure.paygate.co.za/payweb3/process.trans');
    expect(new FormData(form).get('PAY_REQUEST_ID')).toBe('R1');
    expect(submit).toHaveBeenCalledOnce();
  });

  it('asks the WeChat bridge, and reads a cancel as not paid; Alipay succeeds only with 9000', async () => {
    const invoke = vi.fn((_n: string, _p: Record<string, string>, cb: (r: { err_msg?: string }) => void) =>
      cb({ err_msg: 'get_brand_wcpay_request:cancel' }),
    );
    const w = Object.assign(Object.create(window) as Window, { WeixinJSBridge: { invoke } });
    expect(
      await perform({ kind: 'jsapi', bridge: 'wechat', params: { appId: 'wx1', package: 'prepay_id=1' } }, w),
    ).toBe(false);
    expect(invoke.mock.calls[0]?.[0]).toBe('getBrandWCPayRequest');
    const call = vi.fn((_n: string, _p: Record<string, string>, cb: (r: { resultCode?: string }) => void) =>
      cb({ resultCode: '9000' }),
    );
    const a = Object.assign(Object.create(window) as Window, { AlipayJSBridge: { call } });
    expect(await perform({ kind: 'jsapi', bridge: 'alipay', params: { tradeNO: 'T1' } }, a)).toBe(true);
    expect(call.mock.calls[0]?.[1]).toMatchObject({ tradeNO: 'T1' });
  });
});
