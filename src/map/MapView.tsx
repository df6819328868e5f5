// The map surface. With WebGL: maplibre-gl, loaded here only (dynamic import, retried 500 ms × attempt), on a street
// basemap — OpenFreeMap's free public MapLibre style by default, VITE_MAP_STYLE_URL to use another ('plain': none) —
// or, when it cannot load (offline, blocked, not within STYLE_TIMEOUT_MS), a plain style with only a background layer. Without WebGL (some headless or old browsers): a plain Web-Mercator plane with the
// venue markers positioned on it, draggable and zoomable. Either way the markers are 50×56 buttons.
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { Map as MlMap, Marker as MlMarker, StyleSpecification } from 'maplibre-gl';
import { MAP_MAX_ATTEMPTS, MARKER, project, retryDelay, unproject, wrapLng, type LatLng } from '../core/map.ts';
import type { Shop } from '../api/shops.ts';
import { useT } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';

export interface MapViewport {
  centre: LatLng;
  zoom: number;
  /** Changes whenever the owner moves the map (search, focus, geolocation). */
  seq: number;
}

export interface MapViewProps {
  /** Whether a street map shows under the markers (false: a plain background, offline or without WebGL). */
  onStreets?: (shown: boolean) => void;
  shops: Shop[];
  view: MapViewport;
  selected: string | null;
  onMove: (centre: LatLng, zoom: number) => void;
  onSelect: (shop: Shop) => void;
  /** The user's position (the blue dot), when known. */
  me?: LatLng | null;
}

const env = (import.meta as unknown as { env?: Record<string, string | undefined> }).env ?? {};
/** The default street basemap: OpenFreeMap (free, no key, OpenStreetMap data; attribution shown). */
export const DEFAULT_MAP_STYLE_URL = 'https://tiles.openfreemap.org/styles/liberty';
/** The tile style URL (VITE_MAP_STYLE_URL; 'plain' or 'none': only the plain style). */
export const MAP_STYLE_URL = ['plain', 'none'].includes(env.VITE_MAP_STYLE_URL ?? '')
  ? ''
  : env.VITE_MAP_STYLE_URL || DEFAULT_MAP_STYLE_URL;
/** A basemap not loaded by then gives way to the plain style (no network: markers at once, not after a TCP timeout). */
export const STYLE_TIMEOUT_MS = 4000;

export const PLAIN_STYLE: StyleSpecification = {
  version: 8,
  sources: {},
  layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#e6edf2' } }],
};

export function hasWebGL(): boolean {
  try {
    const c = document.createElement('canvas');
    return Boolean(c.getContext('webgl2') ?? c.getContext('webgl'));
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** maplibre-gl and its CSS, loaded on the map screens only; a failed chunk load is retried 500 ms × attempt. */
export async function loadMaplibre() {
  for (let attempt = 1; ; attempt++) {
    try {
      // The worker is its own file: the bundler copies it as an asset and maplibre is told where it is.
      const [mod, worker] = await Promise.all([
        import('maplibre-gl'),
        import('maplibre-gl/dist/maplibre-gl-worker.mjs?url'),
        import('maplibre-gl/dist/maplibre-gl.css'),
      ]);
      mod.setWorkerUrl(worker.default);
      return mod;
    } catch (e) {
      if (attempt >= MAP_MAX_ATTEMPTS) throw e;
      await sleep(retryDelay(attempt));
    }
  }
}

function markerLabel(t: ReturnType<typeof useT>, s: Shop) {
  return s.infoStatus === 1
    ? t('map.markerLabel', { name: s.shopName, n: s.freeNum })
    : t('map.markerOffline', { name: s.shopName });
}

export function MapView(props: MapViewProps) {
  const [mode, setMode] = useState<'gl' | 'plain'>(() => (hasWebGL() ? 'gl' : 'plain'));
  return mode === 'gl' ? <GlMap {...props} onFail={() => setMode('plain')} /> : <PlainMap {...props} />;
}

function GlMap({
  shops,
  view,
  selected,
  onMove,
  onSelect,
  onFail,
  me,
  onStreets,
}: MapViewProps & { onFail: () => void }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const map = useRef<MlMap | null>(null);
  const markers = useRef<MlMarker[]>([]);
  const markerClass = useRef<typeof MlMarker | null>(null);
  const meMarker = useRef<MlMarker | null>(null);
  const [ready, setReady] = useState(false);
  const cb = useRef({ onMove, onSelect, onFail, onStreets });
  cb.current = { onMove, onSelect, onFail, onStreets };
  // The view is a command (applied when its seq changes), not state the map follows on every render.
  const latestView = useLatest(view);

  useEffect(() => {
    const view = latestView.current;
    let cancelled = false;
    let created: MlMap | null = null;
    void (async () => {
      try {
        const ml = await loadMaplibre();
        if (cancelled || !box.current) return;
        markerClass.current = ml.Marker;
        let attempt = 0;
        let loaded = false;
        created = new ml.Map({
          container: box.current,
          style: MAP_STYLE_URL || PLAIN_STYLE,
          center: [view.centre.lng, view.centre.lat],
          zoom: view.zoom,
          attributionControl: false,
        });
        map.current = created;
        // A tile style that does not load (no network, server down) is retried 500 ms × attempt, then the plain style;
        // one still not loaded after STYLE_TIMEOUT_MS gives way to the plain style at once.
        const plain = () => {
          if (loaded || !created) return;
          loaded = true;
          clearTimeout(giveUp);
          created.setStyle(PLAIN_STYLE);
          cb.current.onStreets?.(false);
        };
        if (!MAP_STYLE_URL) cb.current.onStreets?.(false);
        const giveUp = MAP_STYLE_URL ? setTimeout(plain, STYLE_TIMEOUT_MS) : undefined;
        created.on('error', () => {
          if (loaded || !MAP_STYLE_URL || !created) return;
          attempt++;
          if (attempt >= MAP_MAX_ATTEMPTS) plain();
          else setTimeout(() => !loaded && created?.setStyle(MAP_STYLE_URL), retryDelay(attempt));
        });
        created.on('load', () => {
          if (!loaded && MAP_STYLE_URL) {
            created?.addControl(new ml.AttributionControl({ compact: true }));
            cb.current.onStreets?.(true);
          }
          loaded = true;
          clearTimeout(giveUp);
        });
        created.on('moveend', () => {
          const c = created!.getCenter();
          cb.current.onMove({ lat: c.lat, lng: wrapLng(c.lng) }, created!.getZoom());
        });
        setReady(true);
      } catch {
        if (!cancelled) cb.current.onFail();
      }
    })();
    return () => {
      cancelled = true;
      created?.remove();
      map.current = null;
    };
    // The map is created once; later views are applied by the effect below.
  }, [latestView]);

  useEffect(() => {
    const view = latestView.current;
    if (!ready || !map.current) return;
    map.current.jumpTo({ center: [view.centre.lng, view.centre.lat], zoom: view.zoom });
  }, [ready, view.seq, latestView]);

  useEffect(() => {
    const m = map.current;
    const Marker = markerClass.current;
    if (!ready || !m || !Marker) return;
    for (const mk of markers.current) mk.remove();
    markers.current = shops.map((s) => {
      const el = document.createElement('button');
      el.type = 'button';
      el.className = `map-marker${s.infoStatus === 1 ? '' : ' offline'}${s.shopid === selected ? ' selected' : ''}`;
      el.style.width = `${MARKER.width}px`;
      el.style.height = `${MARKER.height}px`;
      el.setAttribute('aria-label', markerLabel(t, s));
      el.textContent = String(s.freeNum);
      el.addEventListener('click', (e) => {
        e.stopPropagation();
        cb.current.onSelect(s);
      });
      return new Marker({ element: el, anchor: 'bottom' }).setLngLat([s.longitude, s.latitude]).addTo(m);
    });
  }, [ready, shops, selected, t]);

  // The user's position: a dot (not a button) with a label.
  useEffect(() => {
    const m = map.current;
    const Marker = markerClass.current;
    meMarker.current?.remove();
    meMarker.current = null;
    if (!ready || !m || !Marker || !me) return;
    const el = document.createElement('span');
    el.className = 'map-me';
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', t('map.you'));
    meMarker.current = new Marker({ element: el }).setLngLat([me.lng, me.lat]).addTo(m);
  }, [ready, me, t]);

  return (
    <div ref={box} className="map-surface" data-renderer="maplibre" role="region" aria-label={t('map.mapLabel')} />
  );
}

/** No WebGL: a plain plane in Web Mercator with positioned markers; drag to pan, buttons to zoom. */
function PlainMap({ shops, view, selected, onMove, onSelect, me, onStreets }: MapViewProps) {
  const t = useT();
  const streets = useLatest(onStreets);
  useEffect(() => streets.current?.(false), [streets]);
  const box = useRef<HTMLDivElement>(null);
  const [cam, setCam] = useState({ centre: view.centre, zoom: view.zoom });
  const [size, setSize] = useState({ w: 360, h: 320 });
  const drag = useRef<{ x: number; y: number; id: number } | null>(null);
  const [offset, setOffset] = useState({ x: 0, y: 0 });

  const latestView = useLatest(view);
  useEffect(() => {
    const view = latestView.current;
    setCam({ centre: view.centre, zoom: view.zoom });
  }, [view.seq, latestView]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setSize({ w: el.clientWidth || 360, h: el.clientHeight || 320 });
    measure();
    const ro = typeof ResizeObserver === 'function' ? new ResizeObserver(measure) : null;
    ro?.observe(el);
    return () => ro?.disconnect();
  }, []);

  const move = (centre: LatLng, zoom: number) => {
    setCam({ centre, zoom });
    onMove(centre, zoom);
  };
  const world = 256 * 2 ** cam.zoom;
  const c = project(cam.centre, cam.zoom);

  const onDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).closest('button')) return;
    drag.current = { x: e.clientX, y: e.clientY, id: e.pointerId };
    e.currentTarget.setPointerCapture?.(e.pointerId);
  };
  const onMoveP = (e: ReactPointerEvent<HTMLDivElement>) => {
    if (drag.current) setOffset({ x: e.clientX - drag.current.x, y: e.clientY - drag.current.y });
  };
  const onUp = () => {
    if (!drag.current) return;
    drag.current = null;
    if (offset.x || offset.y) move(unproject(c.x - offset.x, c.y - offset.y, cam.zoom), cam.zoom);
    setOffset({ x: 0, y: 0 });
  };

  return (
    <div
      ref={box}
      className="map-surface plain"
      data-renderer="plain"
      role="region"
      aria-label={t('map.mapLabel')}
      onPointerDown={onDown}
      onPointerMove={onMoveP}
      onPointerUp={onUp}
      onPointerCancel={onUp}
    >
      {shops.map((s) => {
        const p = project({ lat: s.latitude, lng: s.longitude }, cam.zoom);
        let dx = p.x - c.x;
        if (dx > world / 2) dx -= world; // the nearer copy across the antimeridian
        if (dx < -world / 2) dx += world;
        const x = size.w / 2 + dx + offset.x;
        const y = size.h / 2 + (p.y - c.y) + offset.y;
        if (x < -MARKER.width || x > size.w + MARKER.width || y < 0 || y > size.h + MARKER.height) return null;
        return (
          <button
            key={s.shopid}
            type="button"
            className={`map-marker${s.infoStatus === 1 ? '' : ' offline'}${s.shopid === selected ? ' selected' : ''}`}
            style={{ left: x - MARKER.width / 2, top: y - MARKER.height, width: MARKER.width, height: MARKER.height }}
            aria-label={markerLabel(t, s)}
            onClick={() => onSelect(s)}
          >
            {s.freeNum}
          </button>
        );
      })}
      {me
        ? (() => {
            const p = project(me, cam.zoom);
            return (
              <span
                className="map-me"
                role="img"
                aria-label={t('map.you')}
                style={{ left: size.w / 2 + (p.x - c.x) + offset.x, top: size.h / 2 + (p.y - c.y) + offset.y }}
              />
            );
          })()
        : null}
      <span
        className="map-centre"
        aria-hidden="true"
        style={{ left: size.w / 2 + offset.x, top: size.h / 2 + offset.y }}
      />
      <div className="map-zoom">
        <button
          type="button"
          className="icon-button"
          aria-label={t('map.zoomIn')}
          onClick={() => move(cam.centre, Math.min(20, cam.zoom + 1))}
        >
          +
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('map.zoomOut')}
          onClick={() => move(cam.centre, Math.max(2, cam.zoom - 1))}
        >
          −
        </button>
      </div>
    </div>
  );
}
