// The embed bridge with messages dispatched directly at both ends (happy-dom does not model cross-origin
// postMessage; tests/browser/embed.test.ts runs the same code across two real origins in Chromium). The messages'
// parsers alone: embedProtocol.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostBridge, WidgetBridge, type WidgetEvent } from '../../embed/bridge.ts';
import { MAX_HEIGHT, MIN_HEIGHT, PROTOCOL_VERSION } from '../../embed/protocol.ts';
import { FakeWindow, HOST, TOKEN, WIDGET, msg } from './embedWindow.ts';

describe('widget side', () => {
  let self: FakeWindow;
  let parent: FakeWindow;
  let got: unknown[];
  beforeEach(() => {
    vi.useFakeTimers();
    self = new FakeWindow();
    parent = new FakeWindow();
    got = [];
  });
  afterEach(() => vi.useRealTimers());

  const bridge = () => {
    const b = new WidgetBridge({ self, parent, parentOrigin: HOST, allowlist: [HOST], onMessage: (m) => got.push(m) });
    b.start();
    return b;
  };

  it('refuses to start for a parent origin that is not on the allowlist', () => {
    expect(
      () => new WidgetBridge({ self, parent, parentOrigin: 'https://evil.example', allowlist: [HOST], onMessage() {} }),
    ).toThrow();
    expect(
      () => new WidgetBridge({ self, parent, parentOrigin: 'null', allowlist: ['null'], onMessage() {} }),
    ).toThrow();
  });

  it('says hello to the exact parent origin, never "*", until answered', () => {
    const b = bridge();
    vi.advanceTimersByTime(600);
    expect(parent.posted.length).toBeGreaterThan(1);
    for (const p of parent.posted) expect(p.origin).toBe(HOST);
    expect(parent.posted[0]!.data).toEqual(msg('hello', { versions: [PROTOCOL_VERSION] }));
    parent.posted = [];
    self.deliver(msg('init', { version: 1 }), HOST, parent);
    vi.advanceTimersByTime(1000);
    expect(parent.posted).toEqual([]);
    b.send({ type: 'ready', payload: {} });
    expect(parent.posted).toEqual([{ data: msg('ready', {}), origin: HOST }]);
  });

  it('ignores a message from a foreign origin, from another window, or malformed', () => {
    const b = bridge();
    const other = new FakeWindow();
    self.deliver(msg('init', { version: 1, token: TOKEN }), 'https://evil.example', parent); // wrong origin
    self.deliver(msg('init', { version: 1, token: TOKEN }), HOST, other); // right origin, wrong window
    self.deliver(msg('init', { version: 1, token: TOKEN }), HOST, null); // no source
    self.deliver(msg('init', { version: 1, token: 'x' }), HOST, parent); // fails the schema
    self.deliver(msg('init', { version: 2 }), HOST, parent); // another protocol version
    expect(got).toEqual([]);
    expect(b.isConnected).toBe(false);
    self.deliver(msg('init', { version: 1, token: TOKEN }), HOST, parent);
    expect(got).toEqual([{ type: 'init', payload: { version: 1, token: TOKEN } }]);
    // The answer to a second hello that crossed the first init: dropped, so its code cannot replace the first screen.
    self.deliver(msg('init', { version: 1, qrcode: 'PWL-LIS-001' }), HOST, parent);
    expect(got).toEqual([{ type: 'init', payload: { version: 1, token: TOKEN } }]);
  });

  it('dispatches setLang from the host after init; drops it before init, from a wrong window or malformed', () => {
    bridge();
    self.deliver(msg('setLang', { lang: 'lt-LT' }), HOST, parent); // before init
    self.deliver(msg('init', { version: 1 }), HOST, parent);
    self.deliver(msg('setLang', { lang: 'es-ES' }), HOST, new FakeWindow()); // wrong window
    self.deliver(msg('setLang', { lang: 'es-ES' }), 'https://evil.example', parent); // wrong origin
    self.deliver(msg('setLang', { lang: '../../x' }), HOST, parent); // fails the schema
    self.deliver(msg('setLang', { lang: 'lt-LT' }), HOST, parent);
    expect(got).toEqual([
      { type: 'init', payload: { version: 1 } },
      { type: 'setLang', payload: { lang: 'lt-LT' } },
    ]);
  });

  it('says nothing but hello before the handshake, and drops host messages before init', () => {
    const b = bridge();
    parent.posted = [];
    b.send({ type: 'eject.confirmed', payload: { orderId: '42' } });
    self.deliver(msg('setToken', { token: TOKEN }), HOST, parent);
    expect(parent.posted).toEqual([]);
    expect(got).toEqual([]);
  });

  it('gives up after the handshake timeout', () => {
    const onTimeout = vi.fn();
    new WidgetBridge({
      self,
      parent,
      parentOrigin: HOST,
      allowlist: [HOST],
      onMessage() {},
      onTimeout,
      timeoutMs: 1000,
    }).start();
    vi.advanceTimersByTime(999);
    expect(onTimeout).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onTimeout).toHaveBeenCalledOnce();
  });

  it('throttles and clamps resize messages', () => {
    const b = bridge();
    self.deliver(msg('init', { version: 1 }), HOST, parent);
    parent.posted = [];
    b.resize(99_999);
    b.resize(300);
    b.resize(350);
    expect(parent.posted.map((p) => p.data)).toEqual([msg('resize', { height: MAX_HEIGHT })]);
    vi.advanceTimersByTime(150);
    expect(parent.posted.map((p) => p.data)).toEqual([
      msg('resize', { height: MAX_HEIGHT }),
      msg('resize', { height: 350 }),
    ]);
  });
});

describe('host side', () => {
  let self: FakeWindow;
  let frame: FakeWindow;
  let events: WidgetEvent[];
  beforeEach(() => {
    vi.useFakeTimers();
    self = new FakeWindow();
    frame = new FakeWindow();
    events = [];
  });
  afterEach(() => vi.useRealTimers());

  const bridge = (init = { token: TOKEN, qrcode: 'PWL-LIS-001' }) => {
    const b = new HostBridge({ self, widget: () => frame, widgetOrigin: WIDGET, init, onEvent: (e) => events.push(e) });
    b.start();
    return b;
  };

  it('answers hello from its own iframe with init, posted to the widget origin only', () => {
    bridge();
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    expect(frame.posted).toEqual([
      { data: msg('init', { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001' }), origin: WIDGET },
    ]);
  });

  it('ignores another widget on the same page (same origin, other window) and foreign origins', () => {
    bridge();
    const otherFrame = new FakeWindow();
    self.deliver(msg('hello', { versions: [1] }), WIDGET, otherFrame);
    self.deliver(msg('hello', { versions: [1] }), 'https://evil.example', frame);
    self.deliver(msg('hello', { versions: [1] }), 'null', frame);
    expect(frame.posted).toEqual([]);
    expect(otherFrame.posted).toEqual([]);
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    self.deliver(msg('eject.confirmed', { orderId: '7' }), WIDGET, otherFrame);
    self.deliver(msg('eject.confirmed', { orderId: '8' }), WIDGET, frame);
    expect(events).toEqual([{ type: 'eject.confirmed', orderId: '8' }]);
  });

  it('reports nothing before the handshake, then clamps heights', () => {
    bridge();
    self.deliver(msg('resize', { height: 500 }), WIDGET, frame);
    expect(events).toEqual([]);
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    self.deliver(msg('resize', { height: 1e7 }), WIDGET, frame);
    self.deliver(msg('resize', { height: 2 }), WIDGET, frame);
    expect(events).toEqual([
      { type: 'resize', height: MAX_HEIGHT },
      { type: 'resize', height: MIN_HEIGHT },
    ]);
  });

  it('forwards every widget event with its typed fields', () => {
    bridge();
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    const sent = [
      msg('ready', {}),
      msg('navigate', { path: '/home' }),
      msg('rental.started', { tradeNo: 'T1' }),
      msg('eject.confirmed', { orderId: '9' }),
      msg('eject.failed', { tradeNo: 'T1', code: 'refused', message: 'No' }),
      msg('rental.returned', { orderId: '9' }),
      msg('payment.failed', { code: 'cardDeclined', message: 'Declined' }),
      msg('error', { code: 'badQrcode', message: 'Bad' }),
      msg('rental.notice', { orderId: '9', kind: 'receipt', title: 'Power bank returned', body: '€2.00 for 1 hr.' }),
      // A notice of another shape (an unknown field, a kind outside its pattern, a body too long) is dropped.
      msg('rental.notice', { orderId: '9', kind: 'receipt', title: 'T', body: 'B', extra: 1 }),
      msg('rental.notice', { orderId: '9', kind: 'Receipt!', title: 'T', body: 'B' }),
      msg('rental.notice', { orderId: '9', kind: 'receipt', title: 'T', body: 'x'.repeat(601) }),
    ];
    for (const m of sent) self.deliver(m, WIDGET, frame);
    expect(events.map((e) => e.type)).toEqual([
      'ready',
      'navigate',
      'rental.started',
      'eject.confirmed',
      'eject.failed',
      'rental.returned',
      'payment.failed',
      'error',
      'rental.notice',
    ]);
    expect(events[4]).toEqual({ type: 'eject.failed', tradeNo: 'T1', code: 'refused', message: 'No' });
    expect(events[8]).toEqual({
      type: 'rental.notice',
      orderId: '9',
      kind: 'receipt',
      title: 'Power bank returned',
      body: '€2.00 for 1 hr.',
    });
  });

  it('methods before the handshake go into init (a logout right after it); after it, one message each', () => {
    const b = bridge();
    b.setTheme('{"theme":"dark"}');
    b.open('/order');
    b.logout();
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    // The logout ends the session the frame saved in its own storage, which no init can say.
    expect(frame.posted.map((p) => p.data)).toEqual([
      msg('init', { version: 1, route: '/order', appearance: '{"theme":"dark"}' }),
      msg('logout', {}),
    ]);
    frame.posted = [];
    // A reloaded frame says hello again: the init only, the logout was said once.
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    expect(frame.posted.map((p) => (p.data as { type: string }).type)).toEqual(['init']);
    frame.posted = [];
    b.open('/wallet');
    b.close();
    b.setTheme('{}');
    b.logout();
    expect(frame.posted.map((p) => (p.data as { type: string }).type)).toEqual(['open', 'close', 'setTheme', 'logout']);
    expect(frame.posted.every((p) => p.origin === WIDGET)).toBe(true);
  });

  it('a token handed over after a logout before the handshake is the session: no logout follows the init', () => {
    const b = bridge();
    b.logout();
    b.setToken(TOKEN);
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    expect(frame.posted.map((p) => p.data)).toEqual([msg('init', { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001' })]);
  });

  it('reports a handshake timeout', () => {
    bridge();
    vi.advanceTimersByTime(10_000);
    expect(events).toEqual([{ type: 'error', code: 'handshakeTimeout', message: expect.any(String) }]);
  });

  it('refuses an unsupported protocol version', () => {
    bridge();
    self.deliver(msg('hello', { versions: [2] }), WIDGET, frame);
    expect(frame.posted).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'error', code: 'version' });
  });

  it('a token set after the handshake is posted to the widget origin, never elsewhere', () => {
    const b = bridge({ token: '', qrcode: '' } as never);
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    b.setToken(TOKEN);
    expect(frame.posted.at(-1)).toEqual({ data: msg('setToken', { token: TOKEN }), origin: WIDGET });
    for (const p of frame.posted) expect(p.origin).toBe(WIDGET);
  });

  it('a lang changed after mount: part of init before the handshake, a setLang message after it', () => {
    const b = bridge({ token: TOKEN, qrcode: 'PWL-LIS-001' } as never);
    b.setLang('pt-PT');
    expect(frame.posted).toEqual([]);
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    expect(frame.posted).toEqual([
      { data: msg('init', { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001', lang: 'pt-PT' }), origin: WIDGET },
    ]);
    b.setLang('lt-LT');
    expect(frame.posted.at(-1)).toEqual({ data: msg('setLang', { lang: 'lt-LT' }), origin: WIDGET });
    // A reloaded frame gets the current language in its new init.
    self.deliver(msg('hello', { versions: [1] }), WIDGET, frame);
    expect(frame.posted.at(-1)).toEqual({
      data: msg('init', { version: 1, token: TOKEN, qrcode: 'PWL-LIS-001', lang: 'lt-LT' }),
      origin: WIDGET,
    });
  });

  it('refuses a widget origin that is not an http(s) origin', () => {
    expect(() => new HostBridge({ self, widget: () => frame, widgetOrigin: '*', init: {}, onEvent() {} })).toThrow();
    expect(() => new HostBridge({ self, widget: () => frame, widgetOrigin: 'null', init: {}, onEvent() {} })).toThrow();
  });
});

describe('in-app transport (no origin): content authenticated by a one-time code', () => {
  it('accepts only an init with a code the server redeems; drops everything else', async () => {
    const { NativeBridge } = await import('../../embed/nativeBridge.ts');
    const win = new FakeWindow();
    const out: unknown[] = [];
    const inits: unknown[] = [];
    let refused = 0;
    const redeemed: string[] = [];
    const nb = new NativeBridge({
      targets: [win],
      out: (d) => out.push(d),
      redeem: async (code) => {
        redeemed.push(code);
        if (code !== 'v1.good') throw new Error('401');
        return 'tok_from_server_123';
      },
      onInit: (i) => inits.push(i),
      onRefused: () => refused++,
    });
    nb.start();
    expect(out).toEqual([msg('hello', { versions: [1] })]);
    const flush = () => new Promise((r) => setTimeout(r, 0));
    win.deliver(JSON.stringify(msg('setQrcode', { qrcode: 'PWL-VNO-001' })), '', null); // not an init
    win.deliver(msg('init', { version: 1, token: TOKEN }), '', null); // a token without a code: never trusted
    win.deliver('not json', '', null);
    await flush();
    expect(redeemed).toEqual([]);
    win.deliver(JSON.stringify(msg('init', { version: 1, code: 'v1.bad' })), '', null);
    await flush();
    expect(refused).toBe(1);
    win.deliver(JSON.stringify(msg('init', { version: 1, code: 'v1.good', qrcode: 'PWL-LIS-001' })), '', null);
    await flush();
    expect(inits).toEqual([{ token: 'tok_from_server_123', qrcode: 'PWL-LIS-001', lang: undefined }]);
  });

  it('the hostile opener: a code posted by another window (an opener, a frame) is never redeemed', async () => {
    const { NativeBridge } = await import('../../embed/nativeBridge.ts');
    const win = new FakeWindow();
    const attacker = new FakeWindow(); // the page that window.open()ed the frame with transport=native
    const redeemed: string[] = [];
    const inits: unknown[] = [];
    const nb = new NativeBridge({
      targets: [win],
      out: () => undefined,
      onInit: (i) => inits.push(i),
      onRefused: () => undefined,
      redeem: async (code) => {
        redeemed.push(code);
        return 'tok_of_the_attacker';
      },
    });
    nb.start();
    win.deliver(
      JSON.stringify(msg('init', { version: 1, code: 'v1.attackers-own-code' })),
      'https://evil.example',
      attacker,
    );
    win.deliver(msg('init', { version: 1, code: 'v1.attackers-own-code' }), 'https://evil.example', attacker);
    await new Promise((r) => setTimeout(r, 0));
    expect(redeemed).toEqual([]);
    expect(inits).toEqual([]);
  });
});
