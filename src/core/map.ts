// The map's rules and constants, pure: no DOM, no fetch.

import { queryCode } from './codeLink.ts';

/** Default centre (lat, lng), zoom, focus zoom (a chosen shop), marker size in CSS px. */
export const DEFAULT_CENTRE = { lat: 22.631123, lng: 113.820622 } as const;
export const DEFAULT_ZOOM = 12;
export const FOCUS_ZOOM = 16;
export const MARKER = { width: 50, height: 56 } as const;
/** Nearby-shop calls wait this long after the map stops moving. */
export const SHOP_DEBOUNCE_MS = 500;
/** Map load retry: attempt n waits 500 ms × n. */
export const MAP_RETRY_MS = 500;
export const MAP_MAX_ATTEMPTS = 3;
export const MIN_SENT_ZOOM = 4;

export interface LatLng {
  lat: number;
  lng: number;
}

/** Zoom sent to the server = round(zoom / 2 − 2), minimum 4. */
export function sentZoom(zoom: number): number {
  return Math.max(MIN_SENT_ZOOM, Math.round(zoom / 2 - 2));
}

export function retryDelay(attempt: number): number {
  return MAP_RETRY_MS * attempt;
}

/** Longitude into [−180, 180] (a map panned around the world reports 190°, −540°…). */
export function wrapLng(lng: number): number {
  const w = ((((lng + 180) % 360) + 360) % 360) - 180;
  return w === -180 && lng > 0 ? 180 : w;
}

export const EARTH_RADIUS_M = 6_371_000;

/** Great-circle distance in metres (the server's geographic search uses the same formula in SQL). */
export function haversineMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * r) / 2) ** 2 +
    Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lng2 - lng1) * r) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

const num = (v: string | null) => (v !== null && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/** Shop coordinates from the query: lat & lng (or latitude & longitude), when both are valid. */
export function coordsFromQuery(q: URLSearchParams): LatLng | null {
  const lat = num(q.get('lat') ?? q.get('latitude'));
  const lng = num(q.get('lng') ?? q.get('longitude'));
  if (lat === null || lng === null || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  return { lat, lng };
}

/** The scan code an entry link carries (qr, qrcode, zhcode), for the automatic scan. */
export const entryCode = queryCode;

/** "Go here": a maps direction URL in bicycling mode (Google Maps URLs, opened by the maps app when installed). */
export function directionsUrl(to: LatLng): string {
  return `https://www.google.com/maps/dir/?api=1&destination=${to.lat},${to.lng}&travelmode=bicycling`;
}

/** Web Mercator: world pixel coordinates at a zoom (256-px tiles), for the plain fallback map. */
export function project(p: LatLng, zoom: number): { x: number; y: number } {
  const scale = 256 * 2 ** zoom;
  const s = Math.min(0.9999, Math.max(-0.9999, Math.sin((p.lat * Math.PI) / 180)));
  return { x: ((p.lng + 180) / 360) * scale, y: (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * scale };
}

export function unproject(x: number, y: number, zoom: number): LatLng {
  const scale = 256 * 2 ** zoom;
  const lng = (x / scale) * 360 - 180;
  const n = Math.PI - (2 * Math.PI * y) / scale;
  return { lat: (180 / Math.PI) * Math.atan(Math.sinh(n)), lng: wrapLng(lng) };
}

/** Distance as a short text: 850 m, 1.2 km. */
export function distanceText(metres: number): string {
  if (metres < 0) return '';
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(metres < 10_000 ? 1 : 0)} km`;
}
