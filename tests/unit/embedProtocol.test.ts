// The embed protocol's parsers: the origin allowlist, message schemas, scanned codes, heights, appearance and
// open()'s argument (embed/protocol.ts, embed/host.ts); the bridges that use them: embedBridge.test.ts.
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import {
  MAX_HEIGHT,
  MAX_MESSAGE_BYTES,
  MIN_HEIGHT,
  clampHeight,
  isAllowedOrigin,
  parseHostMessage,
  parseAppearance,
  parseScannedCode,
  parseWidgetMessage,
  throttle,
} from '../../embed/protocol.ts';
import { resolveOpen } from '../../embed/host.ts';
import { TOKEN, msg } from './embedWindow.ts';

describe('origin allowlist: exact match only', () => {
  const list = ['https://venue.example', 'http://localhost:8081'];
  it('accepts the listed origins', () => {
    expect(isAllowedOrigin('https://venue.example', list)).toBe(true);
    expect(isAllowedOrigin('http://localhost:8081', list)).toBe(true);
  });
  it.each([
    'https://venue.example.evil.com', // suffix
    'https://evil-venue.example', // substring
    'https://venue.exampl', // prefix
    'http://venue.example', // scheme
    'https://venue.example:443', // not serialised
    'https://venue.example/', // path
    'https://VENUE.example', // case: not how browsers serialise
    'http://localhost:80811',
    'null',
    '',
    '*',
  ])('refuses %s', (o) => expect(isAllowedOrigin(o, list)).toBe(false));
  it('"null" is refused even when listed', () => expect(isAllowedOrigin('null', ['null'])).toBe(false));
  it('property: an origin passes only when it is one of the entries', { timeout: 30_000 }, () => {
    fc.assert(
      fc.property(fc.webUrl(), (u) => {
        const o = new URL(u).origin;
        expect(isAllowedOrigin(o, list)).toBe(list.includes(o));
        expect(isAllowedOrigin(o + 'x', [o])).toBe(false);
      }),
      { numRuns: 30 },
    );
  });
});

describe('message schemas', () => {
  it('parses the known messages', () => {
    expect(parseWidgetMessage(msg('resize', { height: 500 }))).toEqual({ type: 'resize', payload: { height: 500 } });
    expect(parseHostMessage(msg('init', { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001' }))).toEqual({
      type: 'init',
      payload: { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001' },
    });
  });
  it('drops unknown types, including prototype names (no dynamic method dispatch)', () => {
    for (const type of ['eval', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'init ', 'INIT']) {
      expect(parseHostMessage(msg(type, {}))).toBeNull();
      expect(parseWidgetMessage(msg(type, {}))).toBeNull();
    }
    // A host message type is not a widget message and vice versa.
    expect(parseWidgetMessage(msg('init', { version: 1 }))).toBeNull();
    expect(parseHostMessage(msg('eject.confirmed', { orderId: '1' }))).toBeNull();
  });
  it('drops wrong versions, wrong shapes, extra fields and non-plain objects', () => {
    expect(parseWidgetMessage({ powerly: 2, type: 'ready', payload: {} })).toBeNull();
    expect(parseWidgetMessage({ type: 'ready', payload: {} })).toBeNull();
    expect(parseWidgetMessage(msg('resize', { height: '500' }))).toBeNull();
    expect(parseWidgetMessage(msg('resize', { height: Infinity }))).toBeNull();
    expect(parseWidgetMessage(msg('resize', { height: 5, extra: 1 }))).toBeNull();
    expect(parseWidgetMessage(msg('ready', []))).toBeNull();
    expect(parseWidgetMessage('{"powerly":1,"type":"ready","payload":{}}')).toBeNull();
    expect(parseWidgetMessage(msg('navigate', { path: 'javascript:alert(1)' }))).toBeNull();
    expect(parseHostMessage(msg('setToken', { token: 'short' }))).toBeNull();
    expect(parseHostMessage(msg('setToken', { token: 'has spaces in it' }))).toBeNull();
    expect(parseHostMessage(msg('init', { version: 1, lang: 'xx' }))).toBeNull();
  });
  it('setLang (host → widget) carries one language tag and nothing else', () => {
    expect(parseHostMessage(msg('setLang', { lang: 'lt-LT' }))).toEqual({
      type: 'setLang',
      payload: { lang: 'lt-LT' },
    });
    expect(parseHostMessage(msg('setLang', { lang: 'lt' }))).toBeNull();
    expect(parseHostMessage(msg('setLang', { lang: 'lt-LT; x' }))).toBeNull();
    expect(parseHostMessage(msg('setLang', { lang: 'lt-LT', token: TOKEN }))).toBeNull();
    expect(parseHostMessage(msg('setLang', {}))).toBeNull();
    // A widget → host direction never knows setLang.
    expect(parseWidgetMessage(msg('setLang', { lang: 'lt-LT' }))).toBeNull();
  });
  it('drops messages over the size cap', () => {
    const big = 'a'.repeat(MAX_MESSAGE_BYTES);
    expect(parseWidgetMessage(msg('error', { code: 'x', message: big }))).toBeNull();
    expect(parseHostMessage(msg('setQrcode', { qrcode: big }))).toBeNull();
    expect(parseWidgetMessage({ ...msg('ready', {}), pad: big })).toBeNull();
  });
  it('property: nothing arbitrary throws, and only schema-shaped data passes', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(() => parseWidgetMessage(v)).not.toThrow();
        expect(() => parseHostMessage(v)).not.toThrow();
        expect(parseHostMessage(v)).toBeNull(); // fc.anything never produces { powerly: 1, … } with a valid payload by chance here
      }),
      { numRuns: 300 },
    );
  });
});

describe('scanned codes are validated before use', () => {
  it.each([
    ['PWL-LIS-001', 'PWL-LIS-001'],
    ['  PWL-SH-001 ', 'PWL-SH-001'],
    ['https://powerly.example/#/?qrcode=PWL-VNO-001', 'PWL-VNO-001'],
    ['https://powerly.example/?qrcode=PWL-VNO-001', 'PWL-VNO-001'],
    ['http://localhost:8080/#/?qr=PWL-NYC-001', 'PWL-NYC-001'],
  ])('%s → %s', (input, code) => expect(parseScannedCode(input)).toBe(code));
  it.each([
    '',
    'javascript:alert(1)',
    'data:text/html,x',
    'PWL LIS',
    '<script>',
    'https://x.example/#/?qrcode=a%20b',
    'https://x.example/',
    'x'.repeat(65),
  ])('refuses %s', (input) => expect(parseScannedCode(input)).toBeNull());
});

describe('resize', () => {
  it('clamps heights', () => {
    expect(clampHeight(10)).toBe(MIN_HEIGHT);
    expect(clampHeight(1e9)).toBe(MAX_HEIGHT);
    expect(clampHeight(Number.NaN)).toBe(MIN_HEIGHT);
    expect(clampHeight(640.4)).toBe(640);
  });
  it('throttles and delivers the latest value last', () => {
    vi.useFakeTimers();
    let now = 0;
    const seen: number[] = [];
    const f = throttle(
      (h: number) => seen.push(h),
      100,
      () => now,
    );
    f(1);
    f(2);
    f(3);
    expect(seen).toEqual([1]);
    now = 100;
    vi.advanceTimersByTime(100);
    expect(seen).toEqual([1, 3]);
    vi.useRealTimers();
  });
});

describe('appearance grammar (no CSS injection)', () => {
  it('accepts themes and variables in their grammars', () => {
    const a = {
      theme: 'dark',
      variables: {
        colorPrimary: '#5b3cc4',
        colorBackground: 'rgb(250, 250, 250)',
        colorText: 'hsl(210 20% 15%)',
        colorDanger: '#b3261e',
        fontFamily: '"Open Sans", Arial, sans-serif',
        borderRadius: '8px',
        spacingUnit: '0.25rem',
      },
    };
    expect(parseAppearance(a)).toEqual(a);
    expect(parseAppearance({ theme: 'auto' })).toEqual({ theme: 'auto' });
    expect(parseAppearance({})).toEqual({});
  });
  it.each([
    { theme: 'neon' },
    { variables: { colorPrimary: 'red;background:url(https://evil.example/x)' } },
    { variables: { colorPrimary: 'url(https://evil.example)' } },
    { variables: { colorPrimary: 'var(--x)' } },
    { variables: { colorPrimary: 'expression(alert(1))' } },
    { variables: { colorText: '#12345' } },
    { variables: { fontFamily: 'Arial; } body { display:none' } },
    { variables: { fontFamily: '"a\\"b"' } },
    { variables: { borderRadius: '8px !important' } },
    { variables: { borderRadius: 'calc(1px + 1px)' } },
    { variables: { spacingUnit: '-4px' } },
    { variables: { unknownVar: '1px' } },
    { variables: { colorPrimary: 5 } },
    { theme: 'dark', extra: 1 },
    [],
    null,
    'dark',
  ])('refuses %j', (a) => expect(parseAppearance(a)).toBeNull());
  it('property: anything accepted contains no CSS syntax beyond its grammar', () => {
    fc.assert(
      fc.property(fc.string(), (v) => {
        const ok = parseAppearance({ variables: { colorPrimary: v, fontFamily: v, borderRadius: v } });
        if (ok) expect(v).not.toMatch(/[;{}:\\<>]|url|!/i);
      }),
      { numRuns: 300 },
    );
  });
});

describe('open(): a route or a cabinet code', () => {
  it('reads routes, codes and code links; refuses anything else', () => {
    expect(resolveOpen('/order')).toEqual({ kind: 'route', route: '/order' });
    expect(resolveOpen('PWL-LIS-001')).toEqual({ kind: 'cabinet', qrcode: 'PWL-LIS-001' });
    for (const bad of ['javascript:alert(1)', '/order?token=x', '//evil.example', 'data:text/html,x', '', 5])
      expect(resolveOpen(bad)).toBeNull();
  });
});
