import { describe, expect, it } from 'vitest';
import { parseHash } from '../../src/core/routes.ts';
import { backFallback, scanCodesFrom } from '../../src/core/navigation.ts';
import { NOT_FOUND_TITLE, ROUTES, guard, isPublic, matchRoute, routeOf } from '../../src/routes.ts';
import enUS from '../../locales/en-US.json';

const none = { token: '', qrcode: '', zhcode: '' };

describe('parseHash', () => {
  it.each([
    ['', '/', ''],
    ['#/', '/', ''],
    ['#/?qrcode=PWL-1', '/', 'qrcode=PWL-1'],
    ['#/confirm?price=99.00&payType=YJ', '/confirm', 'price=99.00&payType=YJ'],
    ['#home', '/home', ''],
    ['#/order/', '/order', ''],
  ])('%s → %s ? %s', (hash, path, query) => {
    const r = parseHash(hash);
    expect(r.path).toBe(path);
    expect(r.query.toString()).toBe(query);
  });
});

describe('guard', () => {
  it('public routes pass without a token', () => {
    for (const p of [
      '/',
      '/home',
      '/login',
      '/homeMap',
      '/aboutUsApp/en-US',
      '/contactUsApp/zh-CN',
      '/invoiceOrderDtl',
    ]) {
      expect(guard(p, none)).toEqual({ allow: true });
    }
  });
  it('login-required routes need a token', () => {
    for (const p of [
      '/confirm',
      '/order',
      '/pastOrder',
      '/orderDetail',
      '/borrowSuccess',
      '/result',
      '/selectPakage',
    ]) {
      expect(isPublic(p)).toBe(false);
      expect(guard(p, none)).toEqual({ allow: false, redirect: '/login' });
      expect(guard(p, { ...none, token: 't' })).toEqual({ allow: true });
    }
  });
  it('tourist fallback: a held scan code goes back through the code-link entry', () => {
    expect(guard('/confirm', { ...none, qrcode: 'PWL SH/1' })).toEqual({
      allow: false,
      redirect: '/?qrcode=PWL%20SH%2F1',
    });
    expect(guard('/order', { ...none, zhcode: 'Z9' })).toEqual({ allow: false, redirect: '/?zhcode=Z9' });
  });
  it('unknown routes: login without a token, the not-found screen with one', () => {
    expect(guard('/nope', none)).toEqual({ allow: false, redirect: '/login' });
    expect(guard('/nope', { ...none, token: 't' })).toEqual({ allow: true });
  });
  it('routeOf strips the lang segment of the web-view pages only', () => {
    expect(routeOf('/aboutUsApp/lt-LT')).toBe('/aboutUsApp');
    expect(routeOf('/orderDetail')).toBe('/orderDetail');
  });
});

describe('scan codes (home, homeMap, homeScan)', () => {
  const q = (s: string) => new URLSearchParams(s);
  it('qrcode is stored and clears zhcode; qr is its alias', () => {
    expect(scanCodesFrom('/', q('qrcode=A'))).toEqual({ qrcode: 'A', zhcode: '' });
    expect(scanCodesFrom('/homeMap', q('qr=B'))).toEqual({ qrcode: 'B', zhcode: '' });
  });
  it('zhcode is stored and clears qrcode', () => {
    expect(scanCodesFrom('/home', q('zhcode=Z'))).toEqual({ qrcode: '', zhcode: 'Z' });
  });
  it('other routes and code-less queries leave the codes alone', () => {
    expect(scanCodesFrom('/confirm', q('qrcode=A'))).toBeNull();
    expect(scanCodesFrom('/', q('lang=zh-CN'))).toBeNull();
  });
});

describe('back fallback', () => {
  it('tourists and users without an account go to selectPakage, others to the stored home', () => {
    expect(backFallback(true, true, '/home')).toBe('/selectPakage');
    expect(backFallback(false, false, '/home')).toBe('/selectPakage');
    expect(backFallback(false, true, '/home')).toBe('/home');
    expect(backFallback(false, true, '')).toBe('/homeMap');
  });
});

describe('the one route table (src/routes.ts)', () => {
  const en = flatKeys(enUS);
  function flatKeys(o: object, prefix = ''): Set<string> {
    const out = new Set<string>();
    for (const [k, v] of Object.entries(o)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object') for (const x of flatKeys(v as object, key)) out.add(x);
      else out.add(key);
    }
    return out;
  }

  it('lists every route once, with its access', () => {
    const all = ROUTES.flatMap((r) => [r.path, ...(r.aliases ?? [])]);
    expect(new Set(all).size).toBe(all.length);
    const spec = {
      public: [
        '/login',
        '/otherLogin',
        '/',
        '/homeMap',
        '/home',
        '/login_wechat',
        '/login_alipay',
        '/aboutUs',
        '/aboutUsApp',
        '/contactUs',
        '/contactUsApp',
        '/payMethod',
        '/MercadoPago',
        '/invoiceOrderDtl',
        '/loginborrow',
        '/MonriPay',
        '/orderStatus',
      ],
      private: [
        '/confirm',
        '/wallet',
        '/result',
        '/order',
        '/setting',
        '/shop',
        '/help',
        '/wallet_in',
        '/wallet_out',
        '/wallet_list',
        '/google_map',
        '/map',
        '/nearby_shop',
        '/selectPakage',
        '/wifiMall',
        '/packageOrder',
        '/scanOrder',
        '/scanPickUpOrder',
        '/pickUp',
        '/borrowSuccess',
        '/packageDetail',
        '/orderDetail',
        '/usage',
        '/pastOrder',
        '/scanQr',
        '/payment_card',
        '/cdbUsage',
        '/mine',
      ],
    };
    for (const [access, paths] of Object.entries(spec))
      for (const p of paths) expect(matchRoute(p)?.route.access, p).toBe(access);
    expect(all.sort()).toEqual([...spec.public, ...spec.private].sort());
  });

  it('aliases and the {lang} segment match their route', () => {
    expect(matchRoute('/map')?.route.path).toBe('/google_map');
    expect(routeOf('/pastOrder')).toBe('/order');
    expect(matchRoute('/contactUsApp/pt-PT')).toMatchObject({
      route: { path: '/contactUsApp' },
      params: { lang: 'pt-PT' },
    });
    expect(matchRoute('/aboutUs/en-US')).toBeNull();
    expect(matchRoute('/aboutUsApp/en-US/x')).toBeNull();
    expect(routeOf('/nope')).toBe('/nope');
  });

  it('every built screen has a title key that exists in the locale files; loaders are lazy functions', () => {
    for (const r of ROUTES) {
      if (!r.screen) continue;
      expect(typeof r.screen, r.path).toBe('function');
      expect(r.title && en.has(r.title), `${r.path}: ${r.title}`).toBe(true);
    }
    expect(en.has(NOT_FOUND_TITLE)).toBe(true);
  });

  it('no route shows the not-found screen: every one has its own', () => {
    expect(ROUTES.filter((r) => !r.screen).map((r) => r.path)).toEqual([]);
  });
});
