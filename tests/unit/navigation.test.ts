// Navigation rules of spec §2 (src/core/navigation.ts), the scan-code storage rule among them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  debugConsoleRequested, isAlipay, isWeChat, pageUrlWithoutHash, scanIdOf, supportChatLink, wechatDomainRedirect,
  wechatRouteRedirect, wifiSiteRedirect, WIFI_SCAN_IDS, WIFI_SITE_URL, scanCodesFrom,
} from '../../src/core/navigation.ts';

const WECHAT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ALIPAY = 'Mozilla/5.0 (Linux; Android 13) AppleWebKit/537.36 Chrome/116 Mobile Safari/537.36 AlipayClient/10.5.36';
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
    expect(wechatDomainRedirect(loc('m.powerly.io', '', '#/?qrcode=PWL-SH-001'), WECHAT, hosts)).toBe('https://app.powerly.io/#/?qrcode=PWL-SH-001');
  });
  it('keeps zhcode, and a code from the page query too', () => {
    expect(wechatDomainRedirect(loc('M.POWERLY.IO', '', '#/home?zhcode=Z 1'), WECHAT, hosts)).toBe('https://app.powerly.io/#/?zhcode=Z%201');
    expect(wechatDomainRedirect(loc('m.powerly.io', '?qrcode=Q9', ''), WECHAT, hosts)).toBe('https://app.powerly.io/#/?qrcode=Q9');
    expect(wechatDomainRedirect(loc('m.powerly.io', '', ''), WECHAT, hosts)).toBe('https://app.powerly.io/#/');
  });
  it('does nothing outside WeChat or on the main host', () => {
    expect(wechatDomainRedirect(loc('m.powerly.io', '', '#/?qrcode=A'), SAFARI, hosts)).toBeNull();
    expect(wechatDomainRedirect(loc('app.powerly.io', '', '#/?qrcode=A'), WECHAT, hosts)).toBeNull();
  });
  it('never loses the code (property)', () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.boolean(), (code, zh) => {
      const key = zh ? 'zhcode' : 'qrcode';
      const to = wechatDomainRedirect(loc('m.powerly.io', '', `#/?${key}=${encodeURIComponent(code)}`), WECHAT, hosts)!;
      const u = new URL(to);
      expect(u.host).toBe('app.powerly.io');
      expect(new URLSearchParams(u.hash.slice(u.hash.indexOf('?') + 1)).get(key)).toBe(code);
    }));
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
    expect(supportChatLink('Order PO1 & help', '351912345678')).toBe('https://wa.me/351912345678?text=Order%20PO1%20%26%20help');
  });
  it('signs the page URL without its hash', () => {
    expect(pageUrlWithoutHash('https://app.powerly.io/?a=1#/homeMap?x=2')).toBe('https://app.powerly.io/?a=1');
    expect(pageUrlWithoutHash('https://app.powerly.io/')).toBe('https://app.powerly.io/');
  });
});
