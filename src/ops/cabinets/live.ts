// The live stream of cabinets (GET /ops-api/v1/cabinets/events, server-sent events): each event names a cabinet
// that changed, or asks for everything again (`resync`); the screen reads it through the ordinary endpoints.
// EventSource reconnects by itself; the session cookie goes with it (same origin).
import { useEffect, useRef } from 'react';
import type { CabinetLiveEvent } from '../../contract/ops/cabinets.ts';
import { OPS_API, withQuery } from '../api.ts';

export function useCabinetEvents(id: string | undefined, onEvent: (e: CabinetLiveEvent) => void) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(withQuery(`${OPS_API}/cabinets/events`, { id }));
    source.addEventListener('change', (m) => {
      try {
        handler.current(JSON.parse((m as MessageEvent<string>).data) as CabinetLiveEvent);
      } catch {
        // not an event of ours: ignored
      }
    });
    return () => source.close();
  }, [id]);
}

/** Reads again once the cabinet's last heartbeat is too old (the server's liveness rule turns it offline then). */
export function useOfflineDeadline(
  lastHeartbeatAt: string | null | undefined,
  offlineAfterMs: number | undefined,
  online: boolean,
  reload: () => Promise<void>,
) {
  useEffect(() => {
    if (!online || !lastHeartbeatAt || !offlineAfterMs) return;
    const wait = Date.parse(lastHeartbeatAt) + offlineAfterMs - Date.now() + 1000;
    if (wait > 2_147_000_000) return;
    const timer = setTimeout(() => void reload(), Math.max(1000, wait));
    return () => clearTimeout(timer);
  }, [lastHeartbeatAt, offlineAfterMs, online, reload]);
}
