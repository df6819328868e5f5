// The token-less order detail as the user sees it: no token on the call, the live elapsed time and
// estimate from src/core/pricing.ts, the fee rule, and buying the power bank asking to sign in first.
// Also the half-hour rounding (src/core/duration.ts).
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import OrderStatus, { elapsedMs } from '../../src/orders/OrderStatus.tsx';
import { $dialogs, FeedbackHost } from '../../src/ui/feedback.tsx';
import { formatDuration, halfHours } from '../../src/core/duration.ts';
import { $route, navigate } from '../../src/stores/router.ts';
import { $loginPath, $token } from '../../src/stores/session.ts';
import type { PricePlan } from '../../src/core/pricing.ts';
import { WAIT_MS } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

describe('halfHours (duration rounded to the nearest half hour)', () => {
  it.each([
    [0, 0],
    [14, 0],
    [15, 0.5],
    [44, 0.5],
    [45, 1],
    [95, 1.5],
    [105, 2],
    [1441, 24],
    [-5, 0],
  ])('%i min → %d h', (m, h) => expect(halfHours(m)).toBe(h));
  it('is a multiple of 0.5 within a quarter hour of the duration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (m) => {
        const h = halfHours(m);
        expect(Number.isInteger(h * 2)).toBe(true);
        expect(Math.abs(h * 60 - m)).toBeLessThanOrEqual(15);
      }),
    );
  });
});

const LISBON: PricePlan = {
  kind: 'unit',
  currency: 'EUR',
  unitPrice: 150,
  unitMinutes: 30,
  freeMinutes: 5,
  dailyCap: 800,
  deposit: 3000,
  overtimeAmount: 3000,
  overtimeDays: 3,
  tiers: [],
};
const borrowed = '2026-11-21T10:00:00.000Z';
const order = {
  pOrderid: 'PWL2026',
  pZujie: 1,
  pJiesuanid: 0,
  pBorrowtime: borrowed,
  pGhtime: null,
  pShopName: 'Time Out Market Lisboa',
  pGhShopName: '',
  pUseMins: 0,
  pJiesuan: 0,
  pCurrency: 'EUR',
  pCurrencyName: '€',
  pYajin: 30,
  pJifei: 1.5,
  pJifeiDanwei: 30,
  pFengding: 8,
  priceUnit: 0,
  overtimeAmount: 30,
  estimatedAmount: 4.5,
  boughtOut: false,
  buyOutAt: null,
  buyOutAmount: 30,
  plan: LISBON,
  serverTime: '2026-11-21T11:29:50.000Z', // 89 min 50 s after borrowing
};

let root: Root | null = null;
let host: HTMLElement;
const calls: { url: string; headers: Record<string, string> }[] = [];

beforeAll(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
});
beforeEach(() => {
  calls.length = 0;
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(new Date('2030-01-01T00:00:00Z')); // the device clock is wrong on purpose: the server's counts
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    calls.push({ url: req.url, headers: Object.fromEntries(req.headers) });
    return new Response(JSON.stringify({ code: 0, msg: 'ok', data: order }), {
      headers: { 'content-type': 'application/json' },
    });
  });
  $token.set('');
  $loginPath.set('');
  navigate('/orderStatus?orderId=PWL2026&sign=s3cr3t');
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  $dialogs.set([]);
  host?.remove();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function render() {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () =>
    root!.render(
      <>
        <OrderStatus />
        <FeedbackHost />
      </>,
    ),
  );
  await act(async () => {
    await vi.waitFor(() => expect(host.querySelector('[data-testid="os-amount"]')).not.toBeNull(), {
      timeout: WAIT_MS,
    });
  });
  return host;
}

describe('#/orderStatus', () => {
  it('calls without a token, and shows status, live elapsed time, estimate and fee rule', async () => {
    $token.set('a-session-it-must-not-send');
    const el = await render();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toContain('cdb/mine/order/detail/public?orderId=PWL2026&sign=s3cr3t');
    expect(calls[0]!.headers.token).toBeUndefined();
    const text = el.textContent ?? '';
    expect(text).toContain('Renting');
    expect(text).toContain('€1.50 / 30 min');
    expect(text).toContain('first 5 min free');
    // 89 min 50 s: ceil(90 billed min / 30) = 3 × €1.50 = €4.50; about 1.5 h.
    expect(el.querySelector('[data-testid="os-elapsed"]')!.textContent).toBe(
      `${formatDuration(89 * 60_000 + 50_000, 'en-US', { seconds: true })} · about 1.5 h`,
    );
    expect(formatDuration(89 * 60_000 + 50_000, 'en-US', { seconds: true })).toBe('1 hr 29 min 50 sec');
    expect(el.querySelector('[data-testid="os-amount"]')!.textContent).toBe('€4.50');
    // It keeps running: 20 s later the 91st minute has started → 4 units = €6.
    await act(async () => vi.advanceTimersByTime(20_000));
    expect(el.querySelector('[data-testid="os-elapsed"]')!.textContent).toBe('1 hr 30 min 10 sec · about 1.5 h');
    expect(el.querySelector('[data-testid="os-amount"]')!.textContent).toBe('€6');
  });

  it('buying the power bank without a session explains and offers to sign in, coming back here', async () => {
    const el = await render();
    const buy = [...el.querySelectorAll('button')].find((b) => b.textContent === 'Buy this power bank')!;
    expect(buy).toBeDefined();
    act(() => buy.click());
    const dialog = [...document.querySelectorAll('dialog')].find((d) => d.open)!;
    expect(dialog.textContent).toContain('you need to sign in first');
    const signIn = [...dialog.querySelectorAll('button')].find((b) => b.textContent === 'Sign in')!;
    await act(async () => signIn.click()); // the dialog's answer arrives as a resolved promise
    expect($route.get().path).toBe('/login');
    expect($loginPath.get()).toBe('/orderStatus?orderId=PWL2026&sign=s3cr3t');
  });

  it('elapsedMs runs from the server clock, not the device clock', () => {
    const loadedAt = Date.parse('2030-01-01T00:00:00Z');
    expect(elapsedMs(order, loadedAt, loadedAt)).toBe(89 * 60_000 + 50_000);
    expect(elapsedMs(order, loadedAt, loadedAt + 5000)).toBe(89 * 60_000 + 55_000);
    expect(elapsedMs({ pBorrowtime: 'x', serverTime: order.serverTime }, 0, 0)).toBe(0);
  });
});
