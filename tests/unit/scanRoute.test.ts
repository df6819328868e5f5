import { describe, expect, it } from 'vitest';
import { asksAboutOpenOrders, scanTarget } from '../../src/core/scanRoute.ts';

describe('scanTarget (scan flow)', () => {
  it('a cabinet with a Wi-Fi battery goes to package selection, before any other rule', () => {
    expect(scanTarget({ haveMifiBattery: true })).toBe('/selectPakage');
    expect(scanTarget({ mifiBatteryCount: 2, typeName: 'day pass' })).toBe('/selectPakage');
  });
  it('typeName present goes to package detail (before shopid)', () => {
    expect(scanTarget({ typeName: 'Europe 7 days', shopid: 'v1' })).toBe('/packageDetail');
  });
  it('shopid present goes to package selection', () => {
    expect(scanTarget({ shopid: 'venue-1' })).toBe('/selectPakage');
    expect(scanTarget({ shopid: '0' })).toBe('/selectPakage'); // shopid is a string on the wire (src/contract/cabinets.ts)
  });
  it('otherwise the cabinet home; empty values are not present', () => {
    expect(scanTarget({})).toBe('/home');
    expect(scanTarget({ shopid: '', typeName: '  ', mifiBatteryCount: 0, haveMifiBattery: false })).toBe('/home');
    expect(scanTarget({ shopid: null, typeName: null })).toBe('/home');
  });
  it('a result with data (a Wi-Fi box) opens the package detail', () => {
    expect(scanTarget({ data: { sn: 'MF-LIS-0001' }, shopid: 'v1' })).toBe('/packageDetail');
    expect(scanTarget({ data: '', shopid: 'v1' })).toBe('/selectPakage');
    expect(scanTarget({ data: null })).toBe('/home');
  });
});

describe('asksAboutOpenOrders (unclosed rentals, unless the device is a Wi-Fi box)', () => {
  it('asks for a cabinet scan with open rentals', () => {
    expect(asksAboutOpenOrders({ zujieNum: 2, shopid: 'S1' })).toBe(true);
  });
  it('does not ask without open rentals', () => {
    expect(asksAboutOpenOrders({ zujieNum: 0, shopid: 'S1' })).toBe(false);
    expect(asksAboutOpenOrders({ shopid: 'S1' })).toBe(false);
  });
  it('does not ask for a scanned Wi-Fi device (typeName or device data), open rentals or not', () => {
    expect(asksAboutOpenOrders({ zujieNum: 1, typeName: 'Global 5G' })).toBe(false);
    expect(asksAboutOpenOrders({ zujieNum: 1, data: { sn: 'MF1' } })).toBe(false);
    expect(asksAboutOpenOrders({ zujieNum: 1, typeName: ' ' })).toBe(true);
  });
});
