// useLiveRefresh: a screen refetches what it shows when the server says it changed (src/stores/live.ts), and polls
// at its spec interval only while the live stream is not open.
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { $liveState, onLiveEvent } from '../stores/live.ts';
import type { LiveEvent } from '../api/live.ts';
import { useLatest } from './hooks.ts';

export function useLiveRefresh(match: (e: LiveEvent) => boolean, refresh: () => void, fallbackMs?: number): void {
  const state = useStore($liveState);
  const latest = useLatest({ match, refresh });
  useEffect(
    () =>
      onLiveEvent((e) => {
        if (e.kind === 'resync' || latest.current.match(e)) latest.current.refresh();
      }),
    [latest],
  );
  useEffect(() => {
    if (!fallbackMs || state === 'open') return;
    const id = setInterval(() => latest.current.refresh(), fallbackMs);
    return () => clearInterval(id);
  }, [state, fallbackMs, latest]);
}
