// The dashboard's map: every cabinet of the filter at its venue, coloured by its state now (offline; empty; low on
// power banks; no free slot to return; fine), drawn by MapLibre in this lazy chunk as the venue picker draws. The
// legend beside it counts each state, and the cabinets that need someone are listed: the map's text for screen
// readers and keyboards.
import { useEffect, useRef, useState } from 'react';
import type { Map as MlMap } from 'maplibre-gl';
import type { DashboardCabinet } from '../../contract/ops/dashboard.ts';
import { useT } from '../../i18n/index.ts';
import { hasWebGL, loadMaplibre, MAP_STYLE_URL, PLAIN_STYLE, STYLE_TIMEOUT_MS } from '../../map/MapView.tsx';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

const STATES = ['offline', 'empty', 'low', 'full', 'ok'] as const;
type State = (typeof STATES)[number];
/** Colours with ≥ 3:1 contrast on the map's light ground, told apart by the legend's words too. */
const COLOUR: Record<State, string> = {
  offline: '#5f6b7a',
  empty: '#b3261e',
  low: '#b25e00',
  full: '#6f42c1',
  ok: '#1e7b34',
};
const LISTED = 50;

export function stateOf(c: Pick<DashboardCabinet, 'online' | 'powerbanks' | 'slots'>): State {
  if (!c.online) return 'offline';
  if (c.powerbanks === 0) return 'empty';
  if (c.powerbanks >= c.slots) return 'full';
  return c.powerbanks * 4 < c.slots ? 'low' : 'ok';
}

export default function CabinetMap({ agentId, venueId }: { agentId: string; venueId: string }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const map = useRef<MlMap | null>(null);
  const [cabinets, setCabinets] = useState<DashboardCabinet[]>();
  const [error, setError] = useState<unknown>();
  const gl = hasWebGL();
  useEffect(() => {
    let live = true;
    opsCall<{ items: DashboardCabinet[] }>(
      'GET',
      withQuery('/dashboard/cabinets', { agentId: agentId || undefined, venueId: venueId || undefined }),
    ).then(
      (r) => live && (setCabinets(r.items), setError(undefined)),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [agentId, venueId]);
  useEffect(() => {
    if (!gl || !cabinets?.length || !box.current) return;
    let cancelled = false;
    const data = {
      type: 'FeatureCollection' as const,
      features: cabinets.map((c) => ({
        type: 'Feature' as const,
        properties: { id: c.id, colour: COLOUR[stateOf(c)] },
        geometry: { type: 'Point' as const, coordinates: [c.lng, c.lat] },
      })),
    };
    void loadMaplibre().then((ml) => {
      if (cancelled || !box.current) return;
      const lngs = cabinets.map((c) => c.lng);
      const lats = cabinets.map((c) => c.lat);
      const m = new ml.Map({
        container: box.current,
        style: MAP_STYLE_URL || PLAIN_STYLE,
        center: [lngs[0]!, lats[0]!],
        zoom: 12,
        attributionControl: false,
      });
      const draw = () => {
        if (m.getSource('cabinets')) return;
        m.addSource('cabinets', { type: 'geojson', data });
        m.addLayer({
          id: 'cabinets',
          type: 'circle',
          source: 'cabinets',
          paint: {
            'circle-radius': 6,
            'circle-color': ['get', 'colour'],
            'circle-stroke-color': '#ffffff',
            'circle-stroke-width': 1.5,
          },
        });
      };
      // A basemap that fails or is late gives way to the plain style, and the cabinets are drawn on it.
      let loaded = false;
      const plain = () => {
        if (loaded) return;
        loaded = true;
        m.setStyle(PLAIN_STYLE);
        m.once('styledata', draw);
      };
      const giveUp = MAP_STYLE_URL ? setTimeout(plain, STYLE_TIMEOUT_MS) : undefined;
      m.on('error', plain);
      m.on('load', () => {
        loaded = true;
        clearTimeout(giveUp);
        draw();
      });
      if (cabinets.length > 1) {
        m.fitBounds(
          [
            [Math.min(...lngs), Math.min(...lats)],
            [Math.max(...lngs), Math.max(...lats)],
          ],
          { padding: 32, maxZoom: 15, duration: 0 },
        );
      }
      map.current = m;
    });
    return () => {
      cancelled = true;
      map.current?.remove();
      map.current = null;
    };
  }, [gl, cabinets]);
  const counts = new Map<State, number>(STATES.map((s) => [s, 0]));
  for (const c of cabinets ?? []) counts.set(stateOf(c), counts.get(stateOf(c))! + 1);
  const needing = (cabinets ?? []).filter((c) => stateOf(c) !== 'ok');
  return (
    <section aria-labelledby="dash-map">
      <h2 id="dash-map">{t('ops.dashboard.map.title')}</h2>
      <Problem error={error} />
      {gl ? (
        <div
          ref={box}
          className="ops-map"
          role="img"
          aria-label={t('ops.dashboard.map.label', { n: cabinets?.length ?? 0 })}
        />
      ) : (
        <p className="ops-note">{t('ops.venues.noMap')}</p>
      )}
      <ul className="ops-legend" aria-label={t('ops.dashboard.map.legend')}>
        {STATES.map((s) => (
          <li key={s}>
            <span className="ops-dot" style={{ background: COLOUR[s] }} aria-hidden="true" />
            {t(`ops.dashboard.map.states.${s}`)}: {counts.get(s)}
          </li>
        ))}
      </ul>
      {needing.length > 0 && (
        <details>
          <summary>{t('ops.dashboard.map.needing', { n: needing.length })}</summary>
          <ul>
            {needing.slice(0, LISTED).map((c) => (
              <li key={c.id}>
                {c.id} ({c.venueId}): {t(`ops.dashboard.map.states.${stateOf(c)}`)}, {c.powerbanks}/{c.slots}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
