// #/nearby_shop?shopId=…[&lat&lng]: one venue — banner, name, address, hours, power banks to rent, returnable
// slots (and keeping one for a return), its cabinets online or not with each one's free slots and power banks, kept
// live (shopLive.ts: the venue's stream, else a read every 20 s), a go-here link (maps directions, bicycling) and the
// nearby service buttons.
import { useCallback, useEffect, useState } from 'react';
import '../ui/badge.css';
import { useStore } from '@nanostores/react';
import { $route, navigate } from '../stores/router.ts';
import { useT, errorText } from '../i18n/index.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { returnable, shopDetail, type ShopDetail } from '../api/shops.ts';
import { coordsFromQuery, directionsUrl, distanceText } from '../core/map.ts';
import { Availability } from './ShopCard.tsx';
import { NearbyServices } from './NearbyServices.tsx';
import { ReturnSlot } from './ReturnSlot.tsx';
import { useShopLive } from './shopLive.ts';
import { useReturnsStrings } from '../notify/strings.ts';
import './map.css';

export default function NearbyShop() {
  const t = useT();
  const route = useStore($route);
  const shopId = route.query.get('shopId') ?? route.query.get('shopid') ?? '';
  const at = coordsFromQuery(route.query);
  const [shop, setShop] = useState<ShopDetail | null>(null);
  const [error, setError] = useState('');

  const lat = at?.lat;
  const lng = at?.lng;
  const load = useCallback(() => {
    setError('');
    const from = lat != null && lng != null ? { lat, lng } : undefined;
    shopDetail(shopId, from).then(setShop, (e: unknown) => setError(errorText(e, t)));
  }, [shopId, lat, lng, t]);
  useEffect(() => {
    if (shopId) load();
  }, [load, shopId]);
  // A live change reads the venue again in place: a failed read keeps what is shown (the next change or poll retries).
  const from = lat != null && lng != null ? { lat, lng } : undefined;
  useShopLive(shopId, () => void shopDetail(shopId, from).then(setShop, () => undefined));
  const strings = useReturnsStrings();

  return (
    <>
      <PageHeader title={t('map.shopTitle')} />
      <main className="page nearby-shop">
        {!shopId ? (
          <p role="alert">{t('map.searchNone')}</p>
        ) : error ? (
          <div className="panel" role="alert">
            <p>{error}</p>
            <button type="button" className="button" onClick={load}>
              {t('common.retry')}
            </button>
          </div>
        ) : !shop ? (
          <Loading label={t('common.loading')} />
        ) : (
          <>
            {shop.shopBanner ? <img className="shop-banner" src={shop.shopBanner} alt="" /> : null}
            <h1 className="title">{shop.shopName}</h1>
            <dl className="shop-facts">
              <div>
                <dt>{t('map.address')}</dt>
                <dd>{shop.shopAddress1}</dd>
              </div>
              <div>
                <dt>{t('map.hours')}</dt>
                <dd>{shop.shopTime}</dd>
              </div>
              {shop.distance >= 0 ? (
                <div>
                  <dt>{t('map.distance')}</dt>
                  <dd>{distanceText(shop.distance)}</dd>
                </div>
              ) : null}
            </dl>
            {shop.shopContent ? <p>{shop.shopContent}</p> : null}
            <Availability shop={shop} />
            {shop.infoStatus === 1 ? <ReturnSlot shopId={shop.shopid} free={returnable(shop)} /> : null}
            {shop.cabinets?.length ? (
              <section aria-labelledby="shop-cabinets">
                <h2 id="shop-cabinets" className="subtitle">
                  {t('map.cabinets')}
                </h2>
                <ul className="shop-cabinets">
                  {shop.cabinets.map((c) => (
                    <li key={c.cabinetID} data-cabinet={c.cabinetID}>
                      <span className="shop-cabinet-id">{c.cabinetID}</span>
                      {c.online && strings ? (
                        <span className="shop-cabinet-stock">
                          <span data-stock="return">{t('stock.free', { n: c.returnNum ?? 0 })}</span>
                          <span data-stock="rent">{t('stock.banks', { n: c.freeNum })}</span>
                        </span>
                      ) : null}
                      <span className={`badge${c.online ? ' badge-live' : ' offline'}`}>
                        {c.online ? t('map.online') : t('map.offline')}
                      </span>
                    </li>
                  ))}
                </ul>
              </section>
            ) : null}
            <a
              className="button primary block"
              href={directionsUrl({ lat: shop.latitude, lng: shop.longitude })}
              target="_blank"
              rel="noopener noreferrer"
            >
              {t('map.goHere')}
            </a>
            <button
              type="button"
              className="button block"
              onClick={() => navigate(`/homeMap?lat=${shop.latitude}&lng=${shop.longitude}`)}
            >
              {t('map.showOnMap')}
            </button>
            <NearbyServices />
          </>
        )}
      </main>
    </>
  );
}
