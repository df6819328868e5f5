import { describe, expect, it } from 'vitest';
import { scanTarget } from '../../src/core/scanRoute.ts';

describe('scanTarget (spec §4 scan flow)', () => {
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
