// Component test (happy-dom): the cabinet home's pay / borrow rule as the user sees it.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CabinetHome } from '../../src/rent/Home.tsx';
import { translate } from '../../src/i18n/index.ts';
import { $route } from '../../src/stores/router.ts';
import type { Cabinet } from '../../src/api/cabinet.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

/** A scan answer of an operator back end that leaves fields out (the home copes with a missing priceStrategy). */
type CabinetFixture = Partial<Omit<Cabinet, 'priceStrategy'>> & { priceStrategy?: Partial<Cabinet['priceStrategy']> };

const base: CabinetFixture = {
  cabinetID: 'CAB-1',
  qrcode: 'PWL-SH-001',
  shopname: 'Café Lumen',
  currencyName: '¥',
  currency: 'CNY',
  jifei: 2,
  jifeiDanwei: 30,
  mianfei: 5,
  fengding: 20,
  yajin: 99,
  yajintype: 0,
  myyue: 0,
  chongzhi: 'Y',
  zujieNum: 0,
  haveBatteryCount: 4,
  online: true,
  priceStrategy: {
    pType: 1,
    pPrice: 2,
    pPriceMinute: 30,
    priceUnit: 0,
    pFreeuseMinute: 5,
    pDayAmount: 20,
    pDepositAmount: 99,
  },
};

let root: Root | null = null;
let host: HTMLElement;

beforeAll(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  host?.remove();
});

function render(c: CabinetFixture) {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  act(() => root!.render(<CabinetHome cabinet={c as Cabinet} t={(k, p) => translate(k, p, 'en-US')} />));
  return host;
}

const buttons = (el: HTMLElement) =>
  [...el.querySelectorAll('button')].map((b) => ({ name: b.textContent?.trim(), disabled: b.disabled }));

describe('cabinet home', () => {
  it('shows venue, price per unit, price description and availability', () => {
    const el = render(base);
    expect(el.querySelector('h2')?.textContent).toBe('Café Lumen');
    expect(el.querySelector('.price')?.textContent).toBe('¥2 / 30 min');
    const desc = el.querySelector('.price-desc')?.textContent ?? '';
    expect(desc).toContain('First 5 min free');
    expect(desc).toContain('Daily cap ¥20');
    expect(desc).toContain('Deposit ¥99');
    expect(el.querySelector('[role="status"]')?.textContent).toBe('4 power banks available');
    expect(el.querySelectorAll('.features li')).toHaveLength(3);
  });

  it("yajintype 0 with chongzhi 'Y': a hold (pre-authorization) button that opens #/confirm with the query", () => {
    const el = render(base);
    const pay = [...el.querySelectorAll('button')].find((b) => /^Hold /.test(b.textContent ?? ''))!;
    expect(pay.textContent).toBe('Hold ¥99');
    expect(pay.disabled).toBe(false);
    act(() => pay.click());
    const r = $route.get();
    expect(r.path).toBe('/confirm');
    expect(Object.fromEntries(r.query)).toEqual({
      price: '99.00',
      payType: 'YJ',
      qrcode: 'PWL-SH-001',
      cabinetID: 'CAB-1',
      yaJinType: '0',
    });
  });

  it('yajintype 1: a top-up of deposit − balance', () => {
    const el = render({ ...base, yajintype: 1, myyue: 12.5 });
    expect(buttons(el).map((b) => b.name)).toContain('Pay ¥86.50 deposit');
  });

  it('a deposit partly paid from the wallet says where the rest comes from', () => {
    const el = render({ ...base, yajintype: 1, myyue: 97 });
    expect(buttons(el).map((b) => b.name)).toContain('Pay ¥2 deposit');
    expect(el.querySelector('[data-testid="from-wallet"]')?.textContent).toBe(
      'The other ¥97 of the ¥99 deposit comes from your wallet balance.',
    );
    act(() => root?.unmount());
    expect(render({ ...base, yajintype: 1, myyue: 0 }).querySelector('[data-testid="from-wallet"]')).toBeNull();
  });

  it("chongzhi 'N': the Borrow button, no pay button", () => {
    const el = render({ ...base, chongzhi: 'N', myyue: 150 });
    const names = buttons(el).map((b) => b.name);
    expect(names).toContain('Borrow');
    expect(names.some((n) => /pre-authori|top up/i.test(n ?? ''))).toBe(false);
  });

  it('open rentals block renting with the rent count message', () => {
    const el = render({ ...base, zujieNum: 2 });
    expect(el.querySelector('[role="alert"]')?.textContent).toContain('You have 2 rentals not closed yet');
    expect(buttons(el).find((b) => /^Hold /.test(b.name ?? ''))?.disabled).toBe(true);
  });

  it('no power bank or an offline cabinet disables renting', () => {
    let el = render({ ...base, chongzhi: 'N', haveBatteryCount: 0 });
    expect(el.querySelector('[role="status"]')?.textContent).toBe('0 power banks available');
    expect(buttons(el).find((b) => b.name === 'Borrow')?.disabled).toBe(true);
    act(() => root?.unmount());
    el = render({ ...base, online: false });
    expect(el.querySelector('[role="status"]')?.textContent).toBe('This cabinet is offline right now');
    expect(buttons(el).find((b) => /^Hold /.test(b.name ?? ''))?.disabled).toBe(true);
  });
});

describe('cabinet home without a price strategy', () => {
  it("prices from jifei / jifeiDanwei / mianfei / fengding, without repeating the package screen's fee table", () => {
    const el = render({ ...base, priceStrategy: undefined, jifei: 3, jifeiDanwei: 60, mianfei: 0, fengding: 15 });
    expect(el.querySelector('.price')?.textContent).toBe('¥3 / 1 h');
    expect(el.querySelector('.price-desc')?.textContent).toContain('Daily cap ¥15');
    expect(el.querySelector('.price-desc')?.textContent).not.toContain('free');
    expect(el.querySelectorAll('.fee-examples, table')).toHaveLength(0);
  });
});
