// Geographic search helpers (pure). The map sends its centre and a coarse zoom; we answer with the venues inside
// the view, nearest first. The SQL prefilter is a latitude/longitude bounding box of the view's circle (the exact
// box of a spherical cap, J. P. Matuschek, "Finding Points Within a Distance of a Latitude/Longitude Using
// Bounding Coordinates"): split in two longitude ranges when it crosses the antimeridian, and widened to every
// longitude when it contains a pole. Haversine then gives the exact distance.

import { EARTH_RADIUS_M } from '#core/map.ts';

export { EARTH_RADIUS_M, haversineMetres } from '#core/map.ts';
const DEG = Math.PI / 180;

/** The zoom the client sends is round(mapZoom / 2 − 2), minimum 4. */
export const MIN_SENT_ZOOM = 4;
export const MAX_SENT_ZOOM = 10;

/**
 * Radius in metres of the view for a sent zoom: the half-diagonal of a phone map (≈ 450 px from the centre to a
 * corner) at the map zoom the value stands for (mapZoom ≈ 2 × (sent + 2)), at 156 543 m/px at zoom 0.
 * Sent 4 (map zoom ≤ 12) → ≈ 17 km; 6 (map zoom 16) → ≈ 1.1 km.
 */
export function viewRadiusMetres(sentZoom: number | undefined): number {
  const z = Math.min(MAX_SENT_ZOOM, Math.max(MIN_SENT_ZOOM, Math.round(sentZoom ?? MIN_SENT_ZOOM)));
  return (450 * 156_543) / 2 ** (2 * (z + 2));
}

export interface GeoBox {
  latMin: number;
  latMax: number;
  /** One or two closed longitude ranges within [−180, 180]. */
  lngRanges: [number, number][];
}

/** The bounding box of every point within `radius` metres of (lat, lng). */
export function boundingBox(lat: number, lng: number, radius: number): GeoBox {
  const angular = radius / EARTH_RADIUS_M; // radians
  if (angular >= Math.PI) return { latMin: -90, latMax: 90, lngRanges: [[-180, 180]] };
  const latMin = lat - angular / DEG;
  const latMax = lat + angular / DEG;
  // The cap contains a pole: every longitude.
  if (latMax >= 90 || latMin <= -90) {
    return { latMin: Math.max(-90, latMin), latMax: Math.min(90, latMax), lngRanges: [[-180, 180]] };
  }
  const s = Math.sin(angular) / Math.cos(lat * DEG);
  if (s >= 1) return { latMin, latMax, lngRanges: [[-180, 180]] };
  const dLng = Math.asin(s) / DEG;
  const lo = lng - dLng;
  const hi = lng + dLng;
  if (lo < -180)
    return {
      latMin,
      latMax,
      lngRanges: [
        [lo + 360, 180],
        [-180, hi],
      ],
    };
  if (hi > 180)
    return {
      latMin,
      latMax,
      lngRanges: [
        [lo, 180],
        [-180, hi - 360],
      ],
    };
  return { latMin, latMax, lngRanges: [[lo, hi]] };
}
