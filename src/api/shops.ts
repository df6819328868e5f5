// The map's calls: nearby shops (home variant adds mapType) and shop detail.
import { api } from './client.ts';
import type { NearbyBody, Shop, ShopDetail, ShopSearchQuery } from '../contract/venues.ts';

export type { Shop, ShopDetail };

/** The map view a nearby call asks about. */
export type NearbyQuery = Pick<NearbyBody, 'lat' | 'lng'> & { zoomLevel: number };

/** POST cdb/shop/listnear (home map, with mapType) or cdb/shop/listnear/trial; empty agentOpenId header. */
export function nearbyShops(
  q: NearbyQuery & Pick<NearbyBody, 'filter'>,
  home: boolean,
  signal?: AbortSignal,
): Promise<Shop[]> {
  const body: NearbyBody = {
    coordType: 'wgs84',
    lat: q.lat,
    lng: q.lng,
    zoomLevel: q.zoomLevel,
    ...(home ? { mapType: 'maplibre' } : {}),
    ...(q.filter ? { filter: q.filter } : {}),
  };
  return api.post<Shop[]>(home ? 'cdb/shop/listnear' : 'cdb/shop/listnear/trial', { body, noAgent: true, signal });
}

/** GET cdb/shop/listnear/dtl (coordType, mapType, shopId, lat, lng). */
export function shopDetail(shopId: string, at?: { lat: number; lng: number }): Promise<ShopDetail> {
  return api.get<ShopDetail>('cdb/shop/listnear/dtl', {
    query: { coordType: 'wgs84', mapType: 'maplibre', shopId, ...(at ? { lat: at.lat, lng: at.lng } : {}) },
  });
}

/** GET cdb/shop/search — every venue by name, address or city, nearest to lat/lng first; filter rent|return. */
export function searchShops(q: ShopSearchQuery, signal?: AbortSignal): Promise<Shop[]> {
  return api.get<Shop[]>('cdb/shop/search', { query: { ...q }, signal });
}

/** Slots to return into now: the server's returnNum (not locked, not reserved), else batteryNum − freeNum. */
export const returnable = (s: Pick<Shop, 'batteryNum' | 'freeNum' | 'returnNum'>) =>
  s.returnNum ?? Math.max(0, s.batteryNum - s.freeNum);
