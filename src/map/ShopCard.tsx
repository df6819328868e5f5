// The shop info card on the map and the venue list under it: stock (power banks to rent, returnable slots),
// online or offline, hours, distance, go-here and details.
import { useT } from '../i18n/index.ts';
import '../ui/badge.css';
import { navigate } from '../stores/router.ts';
import { returnable, type Shop } from '../api/shops.ts';
import { directionsUrl, distanceText } from '../core/map.ts';

export function Availability({ shop }: { shop: Pick<Shop, 'freeNum' | 'batteryNum' | 'returnNum' | 'infoStatus'> }) {
  const t = useT();
  if (shop.infoStatus !== 1) {
    return (
      <p className="shop-offline">
        <span className="badge offline">{t('map.offline')}</span> {t('map.offlineHint')}
      </p>
    );
  }
  return (
    <dl className="shop-stock">
      <div>
        <dt>{t('map.available')}</dt>
        <dd>{shop.freeNum}</dd>
      </div>
      <div>
        <dt>{t('map.returnable')}</dt>
        <dd>{returnable(shop)}</dd>
      </div>
    </dl>
  );
}

export function ShopCard({ shop, onClose, onScan }: { shop: Shop; onClose: () => void; onScan: () => void }) {
  const t = useT();
  const detail = `/nearby_shop?shopId=${encodeURIComponent(shop.shopid)}&lat=${shop.latitude}&lng=${shop.longitude}`;
  return (
    <section className="shop-card" aria-labelledby="shop-card-title">
      <div className="shop-card-head">
        <h2 id="shop-card-title">{shop.shopName}</h2>
        <button type="button" className="icon-button" aria-label={t('map.close')} onClick={onClose}>
          ×
        </button>
      </div>
      <p className="muted">
        {shop.shopAddress1}
        {shop.distance >= 0 ? ` · ${distanceText(shop.distance)}` : ''}
      </p>
      <p className="muted">
        {t('map.hours')}: {shop.shopTime}
      </p>
      <Availability shop={shop} />
      <div className="shop-card-actions">
        <a
          className="button"
          href={directionsUrl({ lat: shop.latitude, lng: shop.longitude })}
          target="_blank"
          rel="noopener noreferrer"
        >
          {t('map.goHere')}
        </a>
        <button type="button" className="button" onClick={() => navigate(detail)}>
          {t('map.details')}
        </button>
        <button type="button" className="button primary" onClick={onScan}>
          {t('map.scan')}
        </button>
      </div>
    </section>
  );
}

export function ShopList({
  shops,
  selected,
  onOpen,
}: {
  shops: Shop[];
  selected: string | null;
  onOpen: (s: Shop) => void;
}) {
  const t = useT();
  return (
    <section className="shop-list" aria-label={t('map.listTitle')}>
      <h2 className="visually-hidden">{t('map.listTitle')}</h2>
      <ul>
        {shops.map((s) => (
          <li key={s.shopid}>
            <button
              type="button"
              className={`shop-row${s.shopid === selected ? ' selected' : ''}`}
              aria-current={s.shopid === selected ? 'true' : undefined}
              onClick={() => onOpen(s)}
            >
              <span className="shop-row-name">{s.shopName}</span>
              <span className="shop-row-meta">
                {s.infoStatus === 1 ? t('map.rowStock', { free: s.freeNum, back: returnable(s) }) : t('map.offline')}
                {s.distance >= 0 ? ` · ${distanceText(s.distance)}` : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
