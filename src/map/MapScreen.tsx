// The map screens (#/homeMap, #/google_map, #/map): the map, venue markers and list from the nearby-shops call
// (debounced 500 ms after the map stops, zoom sent = round(zoom/2 − 2) min 4), search popup, shop info card,
// geolocation, the scan button. Shop coordinates may come from the query; entry keys qr/qrcode/zhcode scan at once.
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest, useMountEffect } from '../ui/hooks.ts';
import { $route, navigate } from '../stores/router.ts';
import { $token } from '../stores/session.ts';
import { useT, errorText } from '../i18n/index.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { nearbyShops, returnable, searchShops, type Shop } from '../api/shops.ts';
import {
  DEFAULT_CENTRE,
  DEFAULT_ZOOM,
  FOCUS_ZOOM,
  SHOP_DEBOUNCE_MS,
  coordsFromQuery,
  distanceText,
  entryCode,
  haversineMetres,
  sentZoom,
  type LatLng,
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
  /** The user's position once known: the dot, and the distances (never measured from the map centre). */
  const [me, setMe] = useState<LatLng | null>(null);
  /** Only venues with a free slot to return a power bank. */
  const [returnOnly, setReturnOnly] = useState(false);
  /** Nothing in the view: the nearest venues anywhere (server search), so the screen never just says "none". */
  const [nearest, setNearest] = useState<Shop[] | null>(null);
  const focusQuery = useRef(Boolean(fromQuery));
  /** No street map under the markers (offline, blocked, no WebGL): said on the map, not an empty grey box. */
  const [noStreets, setNoStreets] = useState(false);
  /** Where the user is could not be found: said under the map (a toast there would cover "Scan to rent"). */
  const [geoNote, setGeoNote] = useState('');

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
      setGeoNote(t('map.geoUnsupported'));
      return;
    }
    setGeoNote('');
    navigator.geolocation.getCurrentPosition(
      (p) => {
        const here = { lat: p.coords.latitude, lng: p.coords.longitude };
        setMe(here);
        moveTo(here, DEFAULT_ZOOM);
      },
      () => setGeoNote(t('map.geoFailed')),
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
      nearbyShops(
        {
          lat: camera.centre.lat,
          lng: camera.centre.lng,
          zoomLevel: sentZoom(camera.zoom),
          ...(returnOnly ? { filter: 'return' as const } : {}),
        },
        variant === 'home',
        ctl.signal,
      )
        .then((list) => {
          setFailed('');
          setShops(list);
          setNearest(null);
          if (!list.length) {
            searchShops(
              { lat: camera.centre.lat, lng: camera.centre.lng, filter: returnOnly ? 'return' : 'rent', limit: 5 },
              ctl.signal,
            ).then(setNearest, () => undefined);
          }
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
  }, [camera, variant, latest, returnOnly]);

  const onMove = useCallback((centre: LatLng, zoom: number) => {
    setCamera((c) =>
      Math.abs(c.centre.lat - centre.lat) < 1e-7 && Math.abs(c.centre.lng - centre.lng) < 1e-7 && c.zoom === zoom
        ? c
        : { centre, zoom },
    );
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

  // Distances from the user only; unknown position → none shown.
  const placed = (s: Shop): Shop => ({
    ...s,
    distance: me ? Math.round(haversineMetres(me.lat, me.lng, s.latitude, s.longitude)) : -1,
  });
  const listed = (shops ?? []).filter((s) => !returnOnly || returnable(s) > 0).map(placed);
  const empty = shops !== null && listed.length === 0;
  return (
    <div className="map-screen">
      {header}
      <div className="map-stage">
        <MapView
          shops={listed}
          view={view}
          selected={selected?.shopid ?? null}
          onMove={onMove}
          onSelect={(s) => setSelected(placed(s))}
          me={me}
          onStreets={(shown) => setNoStreets(!shown)}
        />
        {noStreets ? <p className="map-no-streets">{t('map.noStreets')}</p> : null}
        <div className="map-tools">
          <button type="button" className="map-tool" onClick={() => setSearchOpen(true)}>
            <span aria-hidden="true">⌕</span> {t('map.search')}
          </button>
          <button type="button" className="map-tool" onClick={locate}>
            <span aria-hidden="true">◎</span> {t('map.locate')}
          </button>
        </div>
      </div>
      <label className="map-filter">
        <input type="checkbox" checked={returnOnly} onChange={(e) => setReturnOnly(e.target.checked)} />
        {t('map.returnFilter')}
      </label>
      {selected ? <ShopCard shop={placed(selected)} onClose={() => setSelected(null)} onScan={scan} /> : null}
      <div className="map-status" role="status" aria-live="polite">
        {geoNote ? <p className="map-geo-note">{geoNote}</p> : null}
        {failed
          ? failed
          : shops === null
            ? t('map.loading')
            : empty
              ? t(nearest?.length ? 'map.noneHere' : 'map.none')
              : t('map.count', { n: listed.length })}
      </div>
      {empty && nearest?.length ? (
        <section className="map-nearest" aria-labelledby="map-nearest-title">
          <h2 id="map-nearest-title" className="map-nearest-title">
            {t(returnOnly ? 'map.nearestReturnTitle' : 'map.nearestTitle')}
          </h2>
          <ShopList shops={nearest.map(placed)} selected={null} onOpen={focus} />
        </section>
      ) : null}
      {failed ? (
        <button type="button" className="button small" onClick={() => setCamera((c) => ({ ...c }))}>
          {t('common.retry')}
        </button>
      ) : null}
      {extra}
      {listed.length ? <ShopList shops={listed} selected={selected?.shopid ?? null} onOpen={focus} /> : null}
      {selected ? null : (
        <div className="map-scan-bar">
          <button type="button" className="button primary block map-scan" onClick={scan}>
            {t('map.scan')}
          </button>
        </div>
      )}
      <SearchDialog
        open={searchOpen}
        near={me ?? camera.centre}
        returnOnly={returnOnly}
        place={placed}
        onClose={() => setSearchOpen(false)}
        onPick={(s) => {
          setSearchOpen(false);
          focus(s);
        }}
      />
      <ScanDialog open={scanOpen} onClose={() => setScanOpen(false)} onCode={onCode} />
    </div>
  );
}

/** The search popup: every venue by name, address or city (server search), nearest to the user (or the view) first. */
function SearchDialog({
  open,
  near,
  returnOnly,
  place,
  onClose,
  onPick,
}: {
  open: boolean;
  near: LatLng;
  returnOnly: boolean;
  place: (s: Shop) => Shop;
  onClose: () => void;
  onPick: (s: Shop) => void;
}) {
  const t = useT();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Shop[] | null>(null);
  const latest = useLatest(near);
  useEffect(() => {
    if (!open) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      const at = latest.current;
      searchShops(
        { q: q.trim(), lat: at.lat, lng: at.lng, limit: 20, ...(returnOnly ? { filter: 'return' as const } : {}) },
        ctl.signal,
      ).then(setFound, () => !ctl.signal.aborted && setFound([]));
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [open, q, returnOnly, latest]);
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
      {found === null ? null : found.length ? (
        <ul className="map-search-results" aria-label={t('map.searchResults')}>
          {found.map(place).map((s) => (
            <li key={s.shopid}>
              <button type="button" className="button block" onClick={() => onPick(s)}>
                {s.shopName}
                <span className="muted">
                  {' · '}
                  {s.shopAddress1}
                  {s.distance >= 0 ? ` · ${distanceText(s.distance)}` : ''}
                </span>
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

/** Typing pauses this long before the server is asked. */
const SEARCH_DEBOUNCE_MS = 300;
