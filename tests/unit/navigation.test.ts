// Navigation rules (src/core/navigation.ts), the scan-code storage rule among them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  debugConsoleRequested,
  isAlipay,
  isWeChat,
  pageUrlWithoutHash,
  scanIdOf,
  supportChatLink,
  wechatDomainRedirect,
  wechatRouteRedirect,
  wifiSiteRedirect,
  WIFI_SCAN_IDS,
  WIFI_SITE_URL,
  scanCodesFrom,
  backFallback,
  codeLinkUrl,
  routeEffects,
  routeRedirect,
  wifiSiteConfig,
  borrowTarget,
} from '../../src/core/navigation.ts';
import { parseHash } from '../../src/core/routes.ts';

const WECHAT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ALIPAY =
  'Mozilla/5.0 (Linux; Android 13) AppleWebKit/537.36 Chrome/116 Mobile Safari/537.36 AlipayClient/10.5.36';
const hosts = { mainHost: 'app.powerly.io', secondaryHosts: ['m.powerly.io'] };
const loc = (host: string, search: string, hash: string) => ({ protocol: 'https:', host, search, hash });

describe('browser detection', () => {
  it('knows WeChat and Alipay by their user agents', () => {
    expect(isWeChat(WECHAT)).toBe(true);
    expect(isWeChat(SAFARI)).toBe(false);
    expect(isAlipay(ALIPAY)).toBe(true);
    expect(isAlipay(WECHAT)).toBe(false);
  });
});

describe('qrcode / zhcode storage (home, homeMap, homeScan)', () => {
  it('a qrcode clears zhcode, a zhcode clears qrcode, other routes store nothing', () => {
    expect(scanCodesFrom('/', new URLSearchParams('qrcode=A'))).toEqual({ qrcode: 'A', zhcode: '' });
    expect(scanCodesFrom('/homeMap', new URLSearchParams('zhcode=Z'))).toEqual({ qrcode: '', zhcode: 'Z' });
    expect(scanCodesFrom('/home', new URLSearchParams('qrcode=A&zhcode=Z'))).toEqual({ qrcode: 'A', zhcode: '' });
    expect(scanCodesFrom('/wallet', new URLSearchParams('qrcode=A'))).toBeNull();
    expect(scanCodesFrom('/', new URLSearchParams(''))).toBeNull();
  });
});

describe('WeChat secondary-domain redirect', () => {
  it('goes to the main host keeping qrcode from the hash route', () => {
    expect(wechatDomainRedirect(loc('m.powerly.io', '', '#/?qrcode=PWL-SH-001'), WECHAT, hosts)).toBe(
      'https://app.powerly.io/#/?qrcode=PWL-SH-001',
    );
  });
  it('keeps zhcode, and a code from the page query too', () => {
    expect(wechatDomainRedirect(loc('M.POWERLY.IO', '', '#/home?zhcode=Z 1'), WECHAT, hosts)).toBe(
      'https://app.powerly.io/#/?zhcode=Z%201',
    );
    expect(wechatDomainRedirect(loc('m.powerly.io', '?qrcode=Q9', ''), WECHAT, hosts)).toBe(
      'https://app.powerly.io/#/?qrcode=Q9',
    );
    expect(wechatDomainRedirect(loc('m.powerly.io', '', ''), WECHAT, hosts)).toBe('https://app.powerly.io/#/');
  });
  it('does nothing outside WeChat or on the main host', () => {
    expect(wechatDomainRedirect(loc('m.powerly.io', '', '#/?qrcode=A'), SAFARI, hosts)).toBeNull();
    expect(wechatDomainRedirect(loc('app.powerly.io', '', '#/?qrcode=A'), WECHAT, hosts)).toBeNull();
  });
  it('never loses the code (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.boolean(), (code, zh) => {
        const key = zh ? 'zhcode' : 'qrcode';
        const to = wechatDomainRedirect(
          loc('m.powerly.io', '', `#/?${key}=${encodeURIComponent(code)}`),
          WECHAT,
          hosts,
        )!;
        const u = new URL(to);
        expect(u.host).toBe('app.powerly.io');
        expect(new URLSearchParams(u.hash.slice(u.hash.indexOf('?') + 1)).get(key)).toBe(code);
      }),
    );
  });
});

describe('WeChat homeMap → /home', () => {
  it('only in WeChat and only for homeMap', () => {
    expect(wechatRouteRedirect('/homeMap', WECHAT)).toBe('/home');
    expect(wechatRouteRedirect('/homeMap', SAFARI)).toBeNull();
    expect(wechatRouteRedirect('/home', WECHAT)).toBeNull();
  });
});

describe('fixed scan ids → the Wi-Fi site', () => {
  it('redirects the fixed ids, bare or inside a code link', () => {
    const id = WIFI_SCAN_IDS[0]!;
    expect(wifiSiteRedirect(id)).toBe(`${WIFI_SITE_URL}?id=${id}`);
    expect(wifiSiteRedirect(`https://app.powerly.io/?qrcode=${id}`)).toBe(`${WIFI_SITE_URL}?id=${id}`);
    expect(wifiSiteRedirect(`https://q.powerly.io/c/${id}`)).toBe(`${WIFI_SITE_URL}?id=${id}`);
  });
  it('leaves every other code to the rental flow', () => {
    expect(wifiSiteRedirect('PWL-SH-001')).toBeNull();
    expect(wifiSiteRedirect('100000011')).toBeNull();
    expect(wifiSiteRedirect('')).toBeNull();
    expect(wifiSiteRedirect(null)).toBeNull();
    expect(scanIdOf('  PWL-1 ')).toBe('PWL-1');
  });
});

describe('vc=true debug console', () => {
  it('only for the exact value true', () => {
    expect(debugConsoleRequested(new URLSearchParams('vc=true'))).toBe(true);
    expect(debugConsoleRequested(new URLSearchParams('vc=1'))).toBe(false);
    expect(debugConsoleRequested(new URLSearchParams('vc=TRUE'))).toBe(false);
    expect(debugConsoleRequested(new URLSearchParams(''))).toBe(false);
  });
});

describe('support chat link and the signed URL', () => {
  it('opens the chat app to the fixed number', () => {
    expect(supportChatLink(undefined, '+351 912 345 678')).toBe('https://wa.me/351912345678');
    expect(supportChatLink('Order PO1 & help', '351912345678')).toBe(
      'https://wa.me/351912345678?text=Order%20PO1%20%26%20help',
    );
  });
  it('signs the page URL without its hash', () => {
    expect(pageUrlWithoutHash('https://app.powerly.io/?a=1#/homeMap?x=2')).toBe('https://app.powerly.io/?a=1');
    expect(pageUrlWithoutHash('https://app.powerly.io/')).toBe('https://app.powerly.io/');
  });
});

describe('the rules per route, together (routeEffects, routeRedirect)', () => {
  const r = (hash: string) => parseHash(hash);
  const base = {
    access: 'public' as const,
    token: '',
    qrcode: '',
    zhcode: '',
    mificode: '',
    applyLogin: '',
    ua: SAFARI,
  };

  it('scan-code storing: home, homeMap and homeScan store a qrcode (clearing zhcode) or a zhcode (clearing qrcode)', () => {
    expect(routeEffects(r('#/?qrcode=PWL-1')).scanCodes).toEqual({ qrcode: 'PWL-1', zhcode: '' });
    expect(routeEffects(r('#/home?zhcode=Z1')).scanCodes).toEqual({ qrcode: '', zhcode: 'Z1' });
    expect(routeEffects(r('#/homeMap?qr=Q')).scanCodes).toEqual({ qrcode: 'Q', zhcode: '' });
    expect(routeEffects(r('#/wallet?qrcode=PWL-1')).scanCodes).toBeNull();
  });

  it('lang and agentOpenId of the link are stored; vc=true starts the debug console', () => {
    const fx = routeEffects(r('#/?lang=pt-BR&agentOpenId=A7&vc=true'));
    expect(fx.lang).toBe('pt-PT');
    expect(fx.agentOpenId).toBe('A7');
    expect(fx.debugConsole).toBe(true);
    expect(routeEffects(r('#/?vc=1')).debugConsole).toBe(false);
  });

  it('fixed numeric Wi-Fi scan ids leave for the Wi-Fi site, on the scan routes only', () => {
    expect(routeEffects(r(`#/?qrcode=${WIFI_SCAN_IDS[0]}`)).leave).toBe(`${WIFI_SITE_URL}?id=${WIFI_SCAN_IDS[0]}`);
    expect(routeEffects(r(`#/home?zhcode=${WIFI_SCAN_IDS[1]}`)).leave).toBe(`${WIFI_SITE_URL}?id=${WIFI_SCAN_IDS[1]}`);
    expect(routeEffects(r(`#/order?qrcode=${WIFI_SCAN_IDS[0]}`)).leave).toBeNull();
    expect(routeEffects(r('#/?qrcode=PWL-1')).leave).toBeNull();
  });

  it('/loginborrow goes back to the borrow: the cabinet of the code (scanned again), else the cabinet home', () => {
    expect(borrowTarget('PWL-LIS-001')).toBe('/?qrcode=PWL-LIS-001');
    expect(borrowTarget('https://q.powerly.io/?qrcode=A B')).toBe(
      '/?qrcode=https%3A%2F%2Fq.powerly.io%2F%3Fqrcode%3DA%20B',
    );
    expect(borrowTarget('')).toBe('/home');
    expect(borrowTarget(null)).toBe('/home');
  });

  it("the Wi-Fi site's scan ids and address are configuration; blank values keep the defaults", () => {
    const own = wifiSiteConfig(' 555, 777 ,', 'https://wifi.example.net/');
    expect(own).toEqual({ ids: ['555', '777'], site: 'https://wifi.example.net/' });
    expect(routeEffects(r('#/?qrcode=777'), own).leave).toBe('https://wifi.example.net/?id=777');
    expect(routeEffects(r(`#/?qrcode=${WIFI_SCAN_IDS[0]}`), own).leave).toBeNull();
    expect(wifiSiteConfig(undefined, '  ')).toEqual({ ids: WIFI_SCAN_IDS, site: WIFI_SITE_URL });
  });

  it("a scanned Wi-Fi box code ('wifi.') is stored as mificode, not as a cabinet code; a cabinet's code clears it", () => {
    const fx = routeEffects(r('#/?qrcode=https%3A%2F%2Fq.powerly.io%2Fwifi.MF-LIS-0001'));
    expect(fx.mificode).toBe('https://q.powerly.io/wifi.MF-LIS-0001');
    expect(fx.scanCodes).toBeNull();
    expect(routeEffects(r('#/homeMap?qr=wifi.MF-1')).mificode).toBe('wifi.MF-1');
    expect(routeEffects(r('#/?qrcode=PWL-1')).mificode).toBe('');
    expect(routeEffects(r('#/home?zhcode=Z1')).mificode).toBe('');
    expect(routeEffects(r('#/wallet?qrcode=wifi.MF-1')).mificode).toBeNull();
    expect(routeEffects(r('#/homeMap')).mificode).toBeNull();
  });

  it('AppleIdToken is stored; with an apply-login path set, navigation goes there (before the guard)', () => {
    expect(routeRedirect(r('#/login?AppleIdToken=jwt'), base)).toEqual({
      to: null,
      appleIdToken: 'jwt',
      loginPath: null,
    });
    expect(routeRedirect(r('#/login?AppleIdToken=jwt'), { ...base, applyLogin: '/wallet' })).toEqual({
      to: '/wallet',
      appleIdToken: 'jwt',
      loginPath: null,
    });
  });

  it("signed in with a 'wifi.' mificode: homeMap, homeScan and selectPakage go to packageDetail", () => {
    const s = { ...base, token: 't', mificode: 'https://wifi.powerly.io/d/9' };
    for (const p of ['#/homeMap', '#/', '#/selectPakage'])
      expect(routeRedirect(r(p), { ...s, access: 'private' }).to).toBe('/packageDetail');
    expect(routeRedirect(r('#/homeMap'), { ...s, token: '' }).to).toBeNull();
  });

  it('WeChat: homeMap → /home; WeChat and Alipay login screens go to their own login', () => {
    expect(routeRedirect(r('#/homeMap'), { ...base, ua: WECHAT }).to).toBe('/home');
    expect(routeRedirect(r('#/homeMap'), base).to).toBeNull();
    expect(routeRedirect(r('#/otherLogin'), { ...base, ua: WECHAT }).to).toBe('/login_wechat');
    expect(routeRedirect(r('#/login'), { ...base, ua: ALIPAY }).to).toBe('/login_alipay');
  });

  it('the auth redirect: login-required and unknown routes without a token go to /login, remembering the route', () => {
    expect(routeRedirect(r('#/wallet?currency=EUR'), { ...base, access: 'private' })).toEqual({
      to: '/login',
      appleIdToken: null,
      loginPath: '/wallet?currency=EUR',
    });
    expect(routeRedirect(r('#/nope'), { ...base, access: null }).to).toBe('/login');
    expect(routeRedirect(r('#/wallet'), { ...base, access: 'private', token: 't' }).to).toBeNull();
    expect(routeRedirect(r('#/nope'), { ...base, access: null, token: 't' }).to).toBeNull();
    // A held scan code: the code-link entry makes a tourist session instead of the login screen.
    expect(routeRedirect(r('#/confirm'), { ...base, access: 'private', qrcode: 'PWL-1' })).toEqual({
      to: '/?qrcode=PWL-1',
      appleIdToken: null,
      loginPath: null,
    });
    expect(routeRedirect(r('#/home'), base).to).toBeNull();
  });

  it('a code link without a hash becomes its hash route; one with a hash, or without a code, stays', () => {
    expect(codeLinkUrl({ pathname: '/', search: '?qrcode=PWL-1', hash: '' })).toBe('/#/?qrcode=PWL-1');
    expect(codeLinkUrl({ pathname: '/app/', search: '?lang=zh-CN', hash: '' })).toBe('/app/#/?lang=zh-CN');
    expect(codeLinkUrl({ pathname: '/', search: '?qrcode=PWL-1', hash: '#/home' })).toBeNull();
    expect(codeLinkUrl({ pathname: '/', search: '?utm=x', hash: '' })).toBeNull();
  });

  it('the back fallback: selectPakage for tourists or users without an account, else the stored home (homeMap by default)', () => {
    expect(backFallback(true, true, '/home')).toBe('/selectPakage');
    expect(backFallback(false, false, '/home')).toBe('/selectPakage');
    expect(backFallback(false, true, '/home')).toBe('/home');
    expect(backFallback(false, true, '')).toBe('/homeMap');
  });
});
