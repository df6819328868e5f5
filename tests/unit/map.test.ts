// The map's pure rules and the geographic helpers the server's search relies on.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_CENTRE,
  DEFAULT_ZOOM,
  FOCUS_ZOOM,
  MARKER,
  SHOP_DEBOUNCE_MS,
  coordsFromQuery,
  directionsUrl,
  distanceText,
  entryCode,
  haversineMetres,
  project,
  retryDelay,
  sentZoom,
  unproject,
  wrapLng,
} from '../../src/core/map.ts';
import { boundingBox } from '../../server/src/modules/venues/geo.ts';

describe('map constants and rules', () => {
  it('has the map constants', () => {
    expect(DEFAULT_CENTRE).toEqual({ lat: 22.631123, lng: 113.820622 });
    expect([DEFAULT_ZOOM, FOCUS_ZOOM, SHOP_DEBOUNCE_MS]).toEqual([12, 16, 500]);
    expect(MARKER).toEqual({ width: 50, height: 56 });
    expect([1, 2, 3].map(retryDelay)).toEqual([500, 1000, 1500]);
  });

  it('sends round(zoom / 2 − 2), minimum 4', () => {
    expect([0, 8, 12, 13, 15, 16, 18, 22].map(sentZoom)).toEqual([4, 4, 4, 5, 6, 6, 7, 9]);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 24, noNaN: true }),
        (z) => sentZoom(z) >= 4 && Number.isInteger(sentZoom(z)),
      ),
    );
  });

  it('reads shop coordinates and entry codes from the query', () => {
    expect(coordsFromQuery(new URLSearchParams('lat=54.6871&lng=25.2801'))).toEqual({ lat: 54.6871, lng: 25.2801 });
    expect(coordsFromQuery(new URLSearchParams('latitude=-1&longitude=2'))).toEqual({ lat: -1, lng: 2 });
    for (const bad of ['lat=91&lng=0', 'lat=1', 'lat=x&lng=1', 'lat=&lng=1'])
      expect(coordsFromQuery(new URLSearchParams(bad))).toBeNull();
    expect(entryCode(new URLSearchParams('qr=A'))).toEqual({ key: 'qrcode', code: 'A' });
    expect(entryCode(new URLSearchParams('qrcode=B&zhcode=C'))).toEqual({ key: 'qrcode', code: 'B' });
    expect(entryCode(new URLSearchParams('zhcode=C'))).toEqual({ key: 'zhcode', code: 'C' });
    expect(entryCode(new URLSearchParams('lat=1'))).toBeNull();
  });

  it('links to directions in bicycling mode and shortens distances', () => {
    expect(directionsUrl({ lat: 1.5, lng: -2 })).toBe(
      'https://www.google.com/maps/dir/?api=1&destination=1.5,-2&travelmode=bicycling',
    );
    expect([0, 849.6, 1234, 25_400, -1].map(distanceText)).toEqual(['0 m', '850 m', '1.2 km', '25 km', '']);
  });

  it('wraps longitudes and projects / unprojects (Web Mercator) consistently', () => {
    expect([190, -190, 540, 180, -180, 0].map(wrapLng)).toEqual([-170, 170, 180, 180, -180, 0]);
    fc.assert(
      fc.property(
        fc.double({ min: -85, max: 85, noNaN: true }),
        fc.double({ min: -179.9, max: 179.9, noNaN: true }),
        fc.integer({ min: 0, max: 20 }),
        (lat, lng, z) => {
          const p = project({ lat, lng }, z);
          const back = unproject(p.x, p.y, z);
          return Math.abs(back.lat - lat) < 1e-6 && Math.abs(back.lng - lng) < 1e-6;
        },
      ),
    );
  });

  it('every point within the radius lies in the bounding box (antimeridian and poles included)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: 10, max: 50_000, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        (lat, lng, radius, f, bearing) => {
          // A point at distance f × radius on a great circle with the given bearing.
          const d = (f * radius) / 6_371_000;
          const φ1 = (lat * Math.PI) / 180;
          const λ1 = (lng * Math.PI) / 180;
          const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(bearing));
          const λ2 =
            λ1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
          const p = { lat: (φ2 * 180) / Math.PI, lng: wrapLng((λ2 * 180) / Math.PI) };
          if (haversineMetres(lat, lng, p.lat, p.lng) > radius) return true;
          const box = boundingBox(lat, lng, radius);
          const eps = 1e-9;
          return (
            p.lat >= box.latMin - eps &&
            p.lat <= box.latMax + eps &&
            box.lngRanges.some(([a, b]) => p.lng >= a - eps && p.lng <= b + eps)
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
