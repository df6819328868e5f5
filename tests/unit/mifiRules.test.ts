// The Wi-Fi package rules (src/core/mifi.ts): package statuses and buttons, start time and day stepper,
// pickup validation, the QR pickup poll's outcomes, the package price, and the order the mall submits.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DAY_MS,
  DEFAULT_START_AHEAD_MS,
  ORDER_REMARK,
  ORDER_TYPE,
  PACKAGE_TRANSITIONS,
  canBind,
  canMove,
  canPickUp,
  endTime,
  isRenewal,
  mallType,
  orderSubmit,
  orderTotal,
  orderTypeFor,
  packageActions,
  packageName,
  packagePrice,
  packagePriceMajor,
  pickupOutcome,
  showsMyPackages,
  startTime,
  stepDays,
  zonedText,
  boxReturned,
  mifiSnFrom,
  type PendingPackageOrder,
} from '../../src/core/mifi.ts';

const STATUSES = [0, 1, 2, 3, 4, 9, 33, 88];

describe('package price', () => {
  it("a 'Days' package costs its price; any other costs price × days", () => {
    expect(packagePrice({ isPackage: true, price: 1500, selectDays: 9 })).toBe(1500);
    expect(packagePrice({ isPackage: false, price: 200, selectDays: 3 })).toBe(600);
    expect(packagePrice({ isPackage: false, price: 200, selectDays: 0 })).toBe(200);
    expect(packagePriceMajor({ isPackage: false, price: 1.15, selectDays: 3 })).toBe(3.45);
  });
  it('is always a whole number of minor units, never below one day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 365 }),
        fc.boolean(),
        (price, days, isPackage) => {
          const p = packagePrice({ isPackage, price, selectDays: days });
          expect(Number.isSafeInteger(p)).toBe(true);
          expect(p).toBe(isPackage ? price : price * days);
        },
      ),
    );
  });
  it('adds the box deposit only when a box is rented', () => {
    expect(orderTotal({ isPackage: false, price: 200, selectDays: 2 }, 5000, true)).toBe(5400);
    expect(orderTotal({ isPackage: false, price: 200, selectDays: 2 }, 5000, false)).toBe(400);
  });
});

describe('start and end', () => {
  const now = Date.UTC(2026, 0, 1, 10, 0);
  it('defaults to now, or 20 minutes ahead for a new order; never before now', () => {
    expect(startTime(null, now, true)).toBe(now + DEFAULT_START_AHEAD_MS);
    expect(startTime(undefined, now, false)).toBe(now);
    expect(startTime(now - 60_000, now, true)).toBe(now);
    expect(startTime(now + 3_600_000, now, true)).toBe(now + 3_600_000);
    expect(startTime(Number.NaN, now, true)).toBe(now + DEFAULT_START_AHEAD_MS);
  });
  it('ends selectDays after the start', () => {
    expect(endTime(now, 3)).toBe(now + 3 * DAY_MS);
    expect(endTime(now, 0)).toBe(now + DAY_MS);
  });
  it('the day stepper is fixed for a day-type package and stays within 1 … max otherwise', () => {
    expect(stepDays(3, 1, { isPackage: true, Day: 7 })).toBe(7);
    expect(stepDays(3, -1, { isPackage: true, Day: 7 })).toBe(7);
    expect(stepDays(1, -1, { isPackage: false, Day: 1 })).toBe(1);
    expect(stepDays(2, 1, { isPackage: false, Day: 1 })).toBe(3);
    expect(stepDays(30, 1, { isPackage: false, Day: 1 }, 30)).toBe(30);
  });
  it('writes a time as the wall clock of the package country', () => {
    expect(zonedText(Date.UTC(2026, 6, 1, 12, 5), 'Europe/Lisbon')).toBe('2026-07-01 13:05');
    expect(zonedText(Date.UTC(2026, 6, 1, 12, 5), 'America/New_York')).toBe('2026-07-01 08:05');
  });
});

describe('package statuses and buttons', () => {
  it('33 continues payment only; 2 and 9 show the traffic detail; 2 shows the traffic used', () => {
    expect(packageActions({ packageStatus: 33, deviceOrderStatus: 5 })).toMatchObject({
      continuePay: true,
      pickup: false,
      pickupByQr: false,
      traffic: false,
    });
    expect(packageActions({ packageStatus: 2, deviceOrderStatus: 1, productSendSn: 'MF-1' })).toMatchObject({
      traffic: true,
      showUsed: true,
      pickup: false,
    });
    expect(packageActions({ packageStatus: 9, deviceOrderStatus: 3, productSendSn: 'MF-1' })).toMatchObject({
      traffic: true,
      showUsed: false,
    });
    for (const s of [0, 1, 3, 4, 33, 88])
      expect(packageActions({ packageStatus: s, deviceOrderStatus: 1, productSendSn: 'MF-1' }).traffic).toBe(false);
  });
  it('the order detail: renew while the box is in hand and the package not over; rent again once it is over', () => {
    expect(packageActions({ packageStatus: 2, deviceOrderStatus: 1, productSendSn: 'MF-1' })).toMatchObject({
      renew: true,
      rentAgain: false,
    });
    expect(packageActions({ packageStatus: 1, deviceOrderStatus: 1, productSendSn: 'MF-1' })).toMatchObject({
      renew: true,
      rentAgain: false,
    });
    expect(packageActions({ packageStatus: 2, deviceOrderStatus: 3, productSendSn: 'MF-1' }).renew).toBe(false);
    expect(packageActions({ packageStatus: 0, deviceOrderStatus: 5, productSendSn: '' })).toMatchObject({
      renew: false,
      rentAgain: false,
    });
    for (const s of [3, 4, 9, 88])
      expect(packageActions({ packageStatus: s, deviceOrderStatus: 3, productSendSn: 'MF-1' })).toMatchObject({
        renew: false,
        rentAgain: true,
      });
    expect(packageActions({ packageStatus: 33, deviceOrderStatus: 5 })).toMatchObject({
      renew: false,
      rentAgain: false,
      continuePay: true,
    });
  });
  it('pickup shows without a box serial, with deviceOrderStatus 5 or 0 and not unpaid; the QR pickup hides for 0', () => {
    expect(packageActions({ packageStatus: 0, deviceOrderStatus: 5, productSendSn: '' })).toMatchObject({
      pickup: true,
      pickupByQr: true,
    });
    expect(packageActions({ packageStatus: 0, deviceOrderStatus: 0, productSendSn: '' })).toMatchObject({
      pickup: true,
      pickupByQr: false,
    });
    expect(packageActions({ packageStatus: 0, deviceOrderStatus: 5, productSendSn: 'MF-1' })).toMatchObject({
      pickup: false,
      pickupByQr: false,
    });
    expect(packageActions({ packageStatus: 0, deviceOrderStatus: 1, productSendSn: '' }).pickup).toBe(false);
    fc.assert(
      fc.property(
        fc.constantFrom(...STATUSES),
        fc.constantFrom(0, 1, 3, 5),
        fc.constantFrom('', 'MF-1'),
        (s, d, sn) => {
          const a = packageActions({ packageStatus: s, deviceOrderStatus: d, productSendSn: sn });
          if (a.pickup) expect(sn === '' && (d === 5 || d === 0) && s !== 33).toBe(true);
          if (a.pickupByQr) expect(a.pickup && d !== 0).toBe(true);
          expect(a.continuePay).toBe(s === 33);
        },
      ),
    );
  });
  it('the state machine moves only along its transitions; ended, refunded and cancelled are final', () => {
    expect(canMove(33, 0)).toBe(true);
    expect(canMove(0, 1)).toBe(true);
    expect(canMove(1, 2)).toBe(true);
    expect(canMove(2, 9)).toBe(true);
    expect(canMove(9, 2)).toBe(false);
    expect(canMove(33, 2)).toBe(false);
    for (const end of [4, 9, 88]) expect(PACKAGE_TRANSITIONS[end]).toEqual([]);
    for (const [from, tos] of Object.entries(PACKAGE_TRANSITIONS)) {
      for (const to of tos) {
        expect(STATUSES).toContain(to);
        expect(canMove(Number(from), to)).toBe(true);
      }
    }
  });
});

describe('pickup', () => {
  it('needs a chosen package with an orderId; binding needs the serial too', () => {
    expect(canPickUp(null)).toBe(false);
    expect(canPickUp({ orderId: '' })).toBe(false);
    expect(canPickUp({ orderId: '  ' })).toBe(false);
    expect(canPickUp({ orderId: 'MF1-1' })).toBe(true);
    expect(canBind('', { orderId: 'MF1-1' })).toBe(false);
    expect(canBind('MF-LIS-0001', null)).toBe(false);
    expect(canBind('MF-LIS-0001', { orderId: 'MF1-1' })).toBe(true);
  });
  it('the QR poll: pickUp_msg fails, 0 waits, 1 loads, 2 succeeds, anything else refreshes', () => {
    expect(pickupOutcome({ status: 9, pickUp_msg: 'Failed to retrieve the device' })).toBe('failed');
    expect(pickupOutcome({ status: 0, pickUp_msg: 'jammed' })).toBe('failed');
    expect(pickupOutcome({ status: 0 })).toBe('waiting');
    expect(pickupOutcome({ status: 1 })).toBe('loading');
    expect(pickupOutcome({ status: 2 })).toBe('success');
    expect(pickupOutcome({ status: 7 })).toBe('refresh');
  });
});

describe('the stored Wi-Fi code (mificode)', () => {
  it("reads the box serial after 'wifi.'", () => {
    expect(mifiSnFrom('wifi.MF-LIS-0001')).toBe('MF-LIS-0001');
    expect(mifiSnFrom('https://go.example/wifi.MF-NYC-0001?x=1')).toBe('MF-NYC-0001');
    expect(mifiSnFrom('PWL-LIS-001')).toBe('');
  });
  it('a box is back when every package on it says so', () => {
    expect(boxReturned([{ deviceOrderStatus: 3 }, { deviceOrderStatus: 3 }])).toBe(true);
    expect(boxReturned([{ deviceOrderStatus: 3 }, { deviceOrderStatus: 1 }])).toBe(false);
    expect(boxReturned([])).toBe(false);
  });
});

describe('mall types and order types', () => {
  it('reads the mall type; unknown is a purchase', () => {
    expect(mallType('QR')).toBe('QR');
    expect(mallType('nope')).toBe('GM');
    expect(mallType(null)).toBe('GM');
  });
  it('the "my packages" link shows for QR, XG, BXG and DDXG; XG, BXG and DDXG are renewals', () => {
    expect(['QR', 'XG', 'BXG', 'DDXG', 'GM'].map((t) => showsMyPackages(mallType(t)))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(['QR', 'XG', 'BXG', 'DDXG', 'GM'].map((t) => isRenewal(mallType(t)))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
  });
  it('order types 0 to 3', () => {
    expect(orderTypeFor('QR', false)).toBe(ORDER_TYPE.devicePackage);
    expect(orderTypeFor('GM', true)).toBe(ORDER_TYPE.devicePackage);
    expect(orderTypeFor('GM', false)).toBe(ORDER_TYPE.packageOnly);
    expect(orderTypeFor('XG', true)).toBe(ORDER_TYPE.renewal);
    expect(Object.keys(ORDER_REMARK).map(Number)).toEqual([0, 1, 2, 3]);
  });
  it('packageName is region-name-plan', () => {
    expect(packageName('Portugal', 'Daily', { kind: 'unlimited', value: 0 })).toBe('Portugal-Daily-Unlimited');
    expect(packageName('Europe', 'Trip', { kind: 'days', value: 7 })).toBe('Europe-Trip-7Days');
    expect(packageName('Spain', 'Lite', { kind: 'mb', value: 500 })).toBe('Spain-Lite-500MB');
  });
});

describe('the order the mall submits ("Mifi order submit")', () => {
  const base: PendingPackageOrder = {
    mallType: 'QR',
    skuId: 'pt-unl',
    skuPriceId: 'pt-unl:EUR',
    packageName: 'Portugal-Daily-Unlimited',
    country: 'PT',
    isPackage: false,
    Day: 1,
    price: 200,
    currency: 'EUR',
    timeZoneList: ['Europe/Lisbon'],
    depositAmount: 5000,
    selectDays: 2,
    startTime: null,
    withDevice: true,
    qrcode: 'PWL-LIS-001',
    renewalOf: '',
  };
  const now = Date.UTC(2026, 0, 1, 10, 0);
  it('a package with a box: type 0, price × days plus the deposit, the start left to the server when unchosen', () => {
    const s = orderSubmit(base, now);
    expect(s).toMatchObject({ orderType: 0, currency: 'EUR', totalAmount: 54, orderRemark: ORDER_REMARK[0] });
    expect(s.submitDtlDtoList[0]).toMatchObject({ skuId: 'pt-unl', selectDays: 2, packagePrice: 4, depositAmount: 50 });
    expect(s.submitDtlDtoList[0]!.reserverStartTime).toBeUndefined();
  });
  it('a chosen start is sent with its end; a package only has no deposit', () => {
    const s = orderSubmit({ ...base, mallType: 'GM', withDevice: false, startTime: now + 3_600_000 }, now);
    expect(s).toMatchObject({ orderType: 2, totalAmount: 4 });
    expect(s.submitDtlDtoList[0]).toMatchObject({
      reserverStartTime: now + 3_600_000,
      reserverEndTime: now + 3_600_000 + 2 * DAY_MS,
      depositAmount: 0,
    });
  });
  it('a renewal names the package it extends and a day-type package keeps its days', () => {
    const s = orderSubmit(
      { ...base, mallType: 'XG', isPackage: true, Day: 7, price: 1500, selectDays: 3, renewalOf: 'MF1-1' },
      now,
    );
    expect(s).toMatchObject({ orderType: 1, totalAmount: 15 });
    expect(s.submitDtlDtoList[0]).toMatchObject({ mifiOrderId: 'MF1-1', selectDays: 7 });
  });
});
