// The nearest cabinets with a power bank to rent (server venue search, filter=rent) around a point, without the
// venue the user is at: for an empty cabinet, so the screen that says so also says where to go.
import { useEffect, useState } from 'react';
import { searchShops, type Shop } from '../api/shops.ts';
import { haversineMetres } from '../core/map.ts';
import { useT } from '../i18n/index.ts';
import { href, navigate } from '../stores/router.ts';
import { ShopList } from './ShopCard.tsx';

export const NEAREST_COUNT = 3;

export function NearestStock({ at, exclude }: { at: { lat: number; lng: number }; exclude: string }) {
  const t = useT();
  const [shops, setShops] = useState<Shop[] | null>(null);
  const { lat, lng } = at;
  useEffect(() => {
    const ctl = new AbortController();
    searchShops({ lat, lng, filter: 'rent', limit: NEAREST_COUNT + 1 }, ctl.signal).then(
      (list) => setShops(list.filter((s) => s.shopid !== exclude).slice(0, NEAREST_COUNT)),
      () => !ctl.signal.aborted && setShops([]),
    );
    return () => ctl.abort();
  }, [lat, lng, exclude]);
  if (!shops?.length) return null;
  return (
    <section className="nearest-stock" aria-labelledby="nearest-stock-title">
      <h2 id="nearest-stock-title" className="nearest-title">
        {t('map.nearestTitle')}
      </h2>
      <ShopList
        shops={shops.map((s) => ({ ...s, distance: Math.round(haversineMetres(lat, lng, s.latitude, s.longitude)) }))}
        selected={null}
        onOpen={(s) => navigate(href('/google_map', { lat: s.latitude, lng: s.longitude }))}
      />
    </section>
  );
}
