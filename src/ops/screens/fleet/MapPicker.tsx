// The venue's position on a MapLibre map (loaded with this chunk only, as the rider map loads it): a click or a
// dragged marker sets it. The latitude and longitude fields beside it are the keyboard's way to the same value.
import { useEffect, useRef } from 'react';
import type { Map as MlMap, Marker as MlMarker } from 'maplibre-gl';
import { hasWebGL, loadMaplibre, MAP_STYLE_URL, PLAIN_STYLE, STYLE_TIMEOUT_MS } from '../../../map/MapView.tsx';
import { useT } from '../../../i18n/index.ts';

export interface MapPickerProps {
  lat: number;
  lng: number;
  onPick: (lat: number, lng: number) => void;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export default function MapPicker({ lat, lng, onPick }: MapPickerProps) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const map = useRef<MlMap | null>(null);
  const marker = useRef<MlMarker | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const start = useRef({ lat, lng });
  const gl = hasWebGL();

  useEffect(() => {
    if (!gl) return;
    let cancelled = false;
    void loadMaplibre().then((ml) => {
      if (cancelled || !box.current) return;
      const m = new ml.Map({
        container: box.current,
        style: MAP_STYLE_URL || PLAIN_STYLE,
        center: [start.current.lng, start.current.lat],
        zoom: 14,
        attributionControl: false,
      });
      let loaded = false;
      const plain = () => {
        if (!loaded) m.setStyle(PLAIN_STYLE);
        loaded = true;
      };
      const giveUp = MAP_STYLE_URL ? setTimeout(plain, STYLE_TIMEOUT_MS) : undefined;
      m.on('error', plain);
      m.on('load', () => {
        loaded = true;
        clearTimeout(giveUp);
      });
      const mk = new ml.Marker({ draggable: true }).setLngLat([start.current.lng, start.current.lat]).addTo(m);
      mk.on('dragend', () => {
        const p = mk.getLngLat();
        pick.current(round(p.lat), round(p.lng));
      });
      m.on('click', (e) => pick.current(round(e.lngLat.lat), round(e.lngLat.lng)));
      map.current = m;
      marker.current = mk;
    });
    return () => {
      cancelled = true;
      map.current?.remove();
    };
  }, [gl]);

  // A position typed in the fields moves the marker (and the map, when it left the view).
  useEffect(() => {
    if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return;
    marker.current?.setLngLat([lng, lat]);
    if (map.current && !map.current.getBounds().contains([lng, lat])) map.current.setCenter([lng, lat]);
  }, [lat, lng]);

  if (!gl) return <p className="ops-note">{t('ops.venues.noMap')}</p>;
  return <div ref={box} className="ops-map" data-testid="venue-map" />;
}
