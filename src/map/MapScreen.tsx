// The map screens (#/homeMap, #/google_map, #/map): the map, venue markers and list from the nearby-shops call
// (debounced 500 ms after the map stops, zoom sent = round(zoom/2 − 2) min 4), search popup, shop info card,
// geolocation, the scan button. Shop coordinates may come from the query; entry keys qr/qrcode/zhcode scan at once.
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest, useMountEffect } from '../ui/hooks.ts';
import { $route, navigate } from '../stores/router.ts';
import { $token } from '../stores/session.ts';
import { useT, errorText } from '../i18n/index.ts';
import { toast } from '../ui/feedback.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { nearbyShops, type Shop } from '../api/shops.ts';
import {
  DEFAULT_CENTRE, DEFAULT_ZOOM, FOCUS_ZOOM, SHOP_DEBOUNCE_MS, coordsFromQuery, entryCode, haversineMetres, sentZoom, type LatLng,
} from '../core/map.ts';
import { MapView, type MapViewport } from './MapView.tsx';
import { ShopCard, ShopList } from './ShopCard.tsx';
import { ScanDialog } from './ScanDialog.tsx';
import './map.css';

export interface MapScreenProps {
  /** home: cdb/shop/listnear with mapType; nearby: cdb/shop/listnear/trial. */
  variant: 'home' | 'nearby';
  header: ReactNode;
  /** Extra content under the map (nearby service buttons). */
  extra?: ReactNode;
}

export function MapScreen({ variant, header, extra }: MapScreenProps) {
  const t = useT();
  const route = useStore($route);
  const token = useStore($token);
  const entry = entryCode(route.query);
  const fromQuery = useMemo(() => coordsFromQuery(route.query), [route.query]);

  const [view, setView] = useState<MapViewport>(() => ({
    centre: fromQuery ?? DEFAULT_CENTRE,
    zoom: fromQuery ? FOCUS_ZOOM : DEFAULT_ZOOM,
    seq: 0,
  }));
  const [camera, setCamera] = useState({ centre: view.centre, zoom: view.zoom });
  const [shops, setShops] = useState<Shop[] | null>(null);
  const [failed, setFailed] = useState('');
  const [selected, setSelected] = useState<Shop | null>(null);
  const [searchOpen, setSearchOpen] = useState(false);
  const [scanOpen, setScanOpen] = useState(false);
  const focusQuery = useRef(Boolean(fromQuery));

  // Entry keys qr, qrcode, zhcode: the automatic scan (the code-link entry signs a tourist in when needed).
  const entryKey = entry?.key;
  const entryValue = entry?.code;
  useEffect(() => {
    if (entryKey && entryValue) navigate(`/?${entryKey}=${encodeURIComponent(entryValue)}`, { replace: true });
  }, [entryKey, entryValue]);

  const moveTo = useCallback((centre: LatLng, zoom: number) => {
    setView((v) => ({ centre, zoom, seq: v.seq + 1 }));
    setCamera({ centre, zoom });
  }, []);

  const locate = useCallback(() => {
    if (typeof navigator === 'undefined' || !navigator.geolocation) {
      toast(t('map.geoUnsupported'));
      return;
    }
    navigator.geolocation.getCurrentPosition(
      (p) => moveTo({ lat: p.coords.latitude, lng: p.coords.longitude }, DEFAULT_ZOOM),
      () => toast(t('map.geoFailed')),
      { enableHighAccuracy: true, timeout: 10_000, maximumAge: 60_000 },
    );
  }, [moveTo, t]);

  // Without shop coordinates in the query, start from where the user is (the default centre until then).
  useMountEffect(() => {
    if (!fromQuery && !entry) locate();
  });

  // Nearby shops, 500 ms after the map stops moving; a newer view cancels the older call.
  const latest = useLatest({ entry, fromQuery, t });
  useEffect(() => {
    const { entry, fromQuery, t } = latest.current;
    if (entry) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      nearbyShops({ lat: camera.centre.lat, lng: camera.centre.lng, zoomLevel: sentZoom(camera.zoom) }, variant === 'home', ctl.signal)
        .then((list) => {
          setFailed('');
          setShops(list);
          if (focusQuery.current && fromQuery) {
            focusQuery.current = false;
            const here = list.find((s) => haversineMetres(fromQuery.lat, fromQuery.lng, s.latitude, s.longitude) < 50);
            if (here) setSelected(here);
          }
        })
        .catch((e: unknown) => {
          if (ctl.signal.aborted) return;
          setFailed(errorText(e, t));
        });
    }, SHOP_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [camera, variant, latest]);

  const onMove = useCallback((centre: LatLng, zoom: number) => {
    setCamera((c) => (Math.abs(c.centre.lat - centre.lat) < 1e-7 && Math.abs(c.centre.lng - centre.lng) < 1e-7 && c.zoom === zoom ? c : { centre, zoom }));
  }, []);

  const focus = (s: Shop) => {
    setSelected(s);
    moveTo({ lat: s.latitude, lng: s.longitude }, FOCUS_ZOOM);
  };

  // The scan button: a signed-in user scans; otherwise to login.
  const scan = () => {
    if (!token) navigate('/login');
    else setScanOpen(true);
  };
  const onCode = (code: string) => {
    setScanOpen(false);
    navigate(`/?qrcode=${encodeURIComponent(code)}`);
  };

  const empty = shops !== null && shops.length === 0;
  return (
    <div className="map-screen">
      {header}
      <div className="map-stage">
        <MapView shops={shops ?? []} view={view} selected={selected?.shopid ?? null} onMove={onMove} onSelect={setSelected} />
        <div className="map-tools">
          <button type="button" className="map-tool" onClick={() => setSearchOpen(true)}>
            <span aria-hidden="true">⌕</span> {t('map.search')}
          </button>
          <button type="button" className="map-tool" onClick={locate}>
            <span aria-hidden="true">◎</span> {t('map.locate')}
          </button>
        </div>
      </div>
      {selected ? <ShopCard shop={selected} onClose={() => setSelected(null)} onScan={scan} /> : null}
      <div className="map-status" role="status" aria-live="polite">
        {failed ? failed : shops === null ? t('map.loading') : empty ? t('map.none') : t('map.count', { n: shops.length })}
      </div>
      {failed ? (
        <button type="button" className="button small" onClick={() => setCamera((c) => ({ ...c }))}>
          {t('common.retry')}
        </button>
      ) : null}
      {extra}
      {shops && shops.length ? <ShopList shops={shops} selected={selected?.shopid ?? null} onOpen={focus} /> : null}
      {selected ? null : (
        <div className="map-scan-bar">
          <button type="button" className="button primary block map-scan" onClick={scan}>
            {t('map.scan')}
          </button>
        </div>
      )}
      <SearchDialog open={searchOpen} shops={shops ?? []} onClose={() => setSearchOpen(false)} onPick={(s) => { setSearchOpen(false); focus(s); }} />
      <ScanDialog open={scanOpen} onClose={() => setScanOpen(false)} onCode={onCode} />
    </div>
  );
}

/** The search popup: venues of the current view by name or address. */
function SearchDialog({ open, shops, onClose, onPick }: { open: boolean; shops: Shop[]; onClose: () => void; onPick: (s: Shop) => void }) {
  const t = useT();
  const [q, setQ] = useState('');
  const found = useMemo(() => {
    const k = q.trim().toLowerCase();
    return k ? shops.filter((s) => `${s.shopName} ${s.shopAddress1}`.toLowerCase().includes(k)) : shops;
  }, [q, shops]);
  return (
    <Dialog
      open={open}
      title={t('map.searchTitle')}
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose}>
          {t('map.close')}
        </button>
      }
    >
      <div className="field">
        <label htmlFor="map-search">{t('map.searchLabel')}</label>
        <input id="map-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} autoComplete="off" />
      </div>
      {found.length ? (
        <ul className="map-search-results">
          {found.map((s) => (
            <li key={s.shopid}>
              <button type="button" className="button block" onClick={() => onPick(s)}>
                {s.shopName}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p role="status">{t('map.searchNone')}</p>
      )}
    </Dialog>
  );
}
