// Component test (happy-dom): a cabinet's Wi-Fi mall opens on the cabinet's country (the scan result's ISO
// 3166 alpha-2 `country`), against a real local HTTP server playing the catalogue. A cabinet without a country, or
// one whose country the catalogue does not sell, opens on all packages.
import { describe, expect, it } from 'vitest';
import WifiMall from '../../src/mifi/WifiMall.tsx';
import { navigate } from '../../src/stores/router.ts';
import { $cabinet } from '../../src/stores/cabinet.ts';
import { mallOpeningPlace } from '../../src/core/mifi.ts';
import type { Cabinet } from '../../src/api/cabinet.ts';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

/** The catalogue pages asked for (their data), in order. */
const asked: Record<string, unknown>[] = [];
const REGIONS = [
  {
    id: 'europe',
    name: 'Europe',
    flagUrl: '',
    countries: [{ code: 'LT', name: 'Lithuania', flagUrl: '', timeZone: 'Europe/Vilnius' }],
  },
];

localApi((path, body) => {
  if (path !== 'chargenow/mifi/query') return undefined;
  const q = JSON.parse(body) as { url: string; data: string };
  if (q.url === 'regionList') return { json: { code: 0, msg: 'success', data: JSON.stringify(REGIONS) } };
  if (q.url === 'packagePage') {
    asked.push(JSON.parse(q.data) as Record<string, unknown>);
    return { json: { code: 0, msg: 'success', data: JSON.stringify({ records: [], total: 0 }) } };
  }
  return undefined;
});
const render = renderer();

function openMall(country: string | undefined) {
  asked.length = 0;
  $cabinet.set({ qrcode: 'LIS-0001', currency: 'EUR', ...(country ? { country } : {}) } as Cabinet);
  navigate('/wifiMall?type=QR');
  render(<WifiMall />);
}

describe('the Wi-Fi mall opens on the cabinet’s country', () => {
  it('asks the catalogue for the cabinet’s country first and marks it chosen', async () => {
    openMall('LT');
    await until(
      () =>
        asked.length > 0 &&
        document.querySelector('.mifi-place[aria-pressed="true"]')?.textContent?.includes('Lithuania'),
    );
    expect(asked[0]).toMatchObject({ current: 1, country: 'LT' });
  });

  it('opens on all packages when the scan result has no country', async () => {
    openMall(undefined);
    await until(() => asked.length > 0);
    expect(asked[0]!.country).toBeUndefined();
  });

  it('falls back to all packages when the catalogue sells nothing in the cabinet’s country', async () => {
    openMall('JP');
    await until(() => asked.some((a) => a.country === undefined));
    expect(asked.at(-1)!.country).toBeUndefined();
  });

  it('keeps other malls (buying, renewing) on all packages, and ignores a code that is not alpha-2', () => {
    expect(mallOpeningPlace('QR', 'lt')).toEqual({ country: 'LT' });
    expect(mallOpeningPlace('GM', 'LT')).toEqual({});
    expect(mallOpeningPlace('QR', 'LTU')).toEqual({});
    expect(mallOpeningPlace('QR', undefined)).toEqual({});
  });
});
