import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  afterLoginTarget,
  backFallback,
  inAppBrowserOf,
  loginBrowserRedirect,
  loginPathFor,
  miniProgramCode,
  navigationRule,
  unauthorizedTarget,
} from '../../src/core/navigation.ts';
import { guard } from '../../src/routes.ts';
import { COUNTRIES, defaultAreaCode, filterByLabel } from '../../src/core/countries.ts';
import { signMaterial } from '../../src/core/sign.ts';

const q = (s: string) => new URLSearchParams(s);

describe('after login', () => {
  it('stored login path, else the held qrcode, else homeMap', () => {
    expect(afterLoginTarget('/wallet?qrcode=X', 'PWL-1')).toBe('/wallet?qrcode=X');
    expect(afterLoginTarget('', 'PWL SH/1')).toBe('/?qrcode=PWL%20SH%2F1');
    expect(afterLoginTarget('', '')).toBe('/homeMap');
  });
  it('never back to a login screen', () => {
    expect(afterLoginTarget('/otherLogin', '')).toBe('/homeMap');
    expect(afterLoginTarget('/login?x=1', 'Q')).toBe('/?qrcode=Q');
  });
  it('code plus state=STATE is a mini-program code login; other states are not', () => {
    expect(miniProgramCode(q('code=abc&state=STATE'))).toBe('abc');
    expect(miniProgramCode(q('code=abc&state=WEB'))).toBeNull();
    expect(miniProgramCode(q('state=STATE'))).toBeNull();
  });
  it("the guard's /login remembers where it came from, not login screens", () => {
    expect(loginPathFor('/wallet', q('qrcode=A'))).toBe('/wallet?qrcode=A');
    expect(loginPathFor('/order', q(''))).toBe('/order');
    expect(loginPathFor('/otherLogin', q(''))).toBe('');
  });
});

describe('in-app browsers', () => {
  const WECHAT =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.40';
  const ALIPAY =
    'Mozilla/5.0 (Linux; Android 13) AppleWebKit/537.36 Chrome/116 Mobile Safari/537.36 AlipayClient/10.5.0';
  it('WeChat → /login_wechat, Alipay → /login_alipay, on the login screens only', () => {
    expect(inAppBrowserOf(WECHAT)).toBe('wechat');
    expect(inAppBrowserOf(ALIPAY)).toBe('alipay');
    expect(inAppBrowserOf('Mozilla/5.0 Chrome/120')).toBe('other');
    expect(loginBrowserRedirect('/otherLogin', 'wechat')).toBe('/login_wechat');
    expect(loginBrowserRedirect('/otherLogin', 'alipay')).toBe('/login_alipay');
    expect(loginBrowserRedirect('/login', 'wechat')).toBe('/login_wechat');
    expect(loginBrowserRedirect('/otherLogin', 'other')).toBeNull();
    expect(loginBrowserRedirect('/wallet', 'wechat')).toBeNull();
  });
});

describe('navigation rules before the guard', () => {
  const s = { token: '', mificode: '', applyLogin: '' };
  it('AppleIdToken is stored; with an apply-login path navigation goes there', () => {
    expect(navigationRule('/login', q('AppleIdToken=abc'), s)).toEqual({
      kind: 'store',
      store: { appleIdToken: 'abc' },
    });
    expect(navigationRule('/login', q('AppleIdToken=abc'), { ...s, applyLogin: '/wallet' })).toEqual({
      kind: 'redirect',
      to: '/wallet',
      store: { appleIdToken: 'abc' },
    });
    // Already on the apply-login path: store only (no loop).
    expect(navigationRule('/wallet', q('AppleIdToken=abc'), { ...s, applyLogin: '/wallet' }).kind).toBe('store');
  });
  it("signed in, homeMap / homeScan / selectPakage with a 'wifi.' mificode → packageDetail", () => {
    const w = { ...s, token: 't', mificode: 'https://wifi.example/d/123' };
    for (const p of ['/homeMap', '/', '/selectPakage'])
      expect(navigationRule(p, q(''), w)).toEqual({ kind: 'redirect', to: '/packageDetail' });
    expect(navigationRule('/', q('qrcode=PWL-1'), w)).toEqual({ kind: 'none' }); // a code link still scans
    expect(navigationRule('/homeMap', q(''), { ...w, token: '' })).toEqual({ kind: 'none' });
    expect(navigationRule('/homeMap', q(''), { ...w, mificode: 'PWL-1' })).toEqual({ kind: 'none' });
    expect(navigationRule('/order', q(''), w)).toEqual({ kind: 'none' });
  });
  it('401: tourists holding a code get a new tourist session via the code link; everyone else goes to login', () => {
    expect(unauthorizedTarget(true, 'Q1', '')).toBe('/?qrcode=Q1');
    expect(unauthorizedTarget(true, '', 'Z1')).toBe('/?zhcode=Z1');
    expect(unauthorizedTarget(false, 'Q1', '')).toBe('/login');
    expect(unauthorizedTarget(true, '', '')).toBe('/login');
  });
  it('guard and back button: login screens are public; tourists fall back to selectPakage', () => {
    for (const p of ['/login', '/otherLogin', '/login_wechat', '/login_alipay'])
      expect(guard(p, { token: '', qrcode: '', zhcode: '' })).toEqual({ allow: true });
    expect(backFallback(true, false, '/homeMap')).toBe('/selectPakage');
    expect(backFallback(false, true, '')).toBe('/homeMap');
  });
});

describe('area codes', () => {
  it('default from the browser language region, else 86', () => {
    expect(defaultAreaCode('lt-LT')).toBe('370');
    expect(defaultAreaCode('pt_PT')).toBe('351');
    expect(defaultAreaCode('en-US')).toBe('1');
    expect(defaultAreaCode('en')).toBe('86');
    expect(defaultAreaCode('xx-ZZ')).toBe('86');
    expect(defaultAreaCode(undefined)).toBe('86');
  });
  it('every ISO code is unique and every dial code is digits', () => {
    expect(new Set(COUNTRIES.map((c) => c.code)).size).toBe(COUNTRIES.length);
    for (const c of COUNTRIES) expect(c.value).toMatch(/^\d{1,4}$/);
  });
  it('the filter is a case-insensitive label substring (property)', () => {
    const list = [{ label: 'Lithuania +370' }, { label: 'Portugal +351' }, { label: 'China +86' }];
    expect(filterByLabel(list, 'LITH').map((c) => c.label)).toEqual(['Lithuania +370']);
    expect(filterByLabel(list, '  ')).toHaveLength(3);
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), fc.string({ maxLength: 4 }), (labels, k) => {
        const items = labels.map((label) => ({ label }));
        const out = filterByLabel(items, k);
        const key = k.trim().toLowerCase();
        expect(out).toEqual(items.filter((i) => !key || i.label.toLowerCase().includes(key)));
        expect(filterByLabel(items, k.toUpperCase()).length).toBe(filterByLabel(items, k.toLowerCase()).length);
      }),
    );
  });
});

describe('sendVerifyCode sign material', () => {
  it('zeros of the timestamp become 8, then the fixed suffix', () => {
    expect(signMaterial('1700000000')).toBe('1788888888powerly-sms-v1');
    expect(signMaterial('123')).toBe('123powerly-sms-v1');
  });
});

describe('tourist login by browser', () => {
  it('not in the WeChat browser', async () => {
    const { touristLoginAllowed } = await import('../../src/core/navigation.ts');
    expect(touristLoginAllowed('wechat')).toBe(false);
    expect(touristLoginAllowed('alipay')).toBe(true);
    expect(touristLoginAllowed('other')).toBe(true);
  });
});
