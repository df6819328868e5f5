// The venue page follows its venue live (GET live/shop, docs/api.md "Live updates"): each change of what its cabinets
// hold or can take back makes the page read the venue again through its ordinary call. The stream needs a one-use
// ticket of the rider's live channel (live/ticket); it is reopened with a new one after an error, with backoff. While
// it is down (no EventSource, a proxy that buffers, the server restarting) the page reads the venue every
// SHOP_POLL_MS instead. Only the venue page loads this file (its lazy chunk), not the first load.
import { useEffect } from 'react';
import { api, DEFAULT_API_BASE } from '../api/client.ts';
import { liveTicket, type LiveEvent } from '../api/live.ts';
import { useLatest } from '../ui/hooks.ts';

/** How often the page reads the venue while the stream is down. */
export const SHOP_POLL_MS = 20_000;
const MAX_BACKOFF_MS = 30_000;

function shopEventsUrl(ticket: string, shopId: string): string {
  const base = api.config.baseURL ?? DEFAULT_API_BASE;
  return `${base.replace(/\/?$/, '/')}live/shop?ticket=${encodeURIComponent(ticket)}&shopId=${encodeURIComponent(shopId)}`;
}

/** Calls `onChange` whenever venue `shopId`'s cabinets change (or may have: after a reconnection). */
export function useShopLive(shopId: string, onChange: () => void): void {
  const latest = useLatest(onChange);
  useEffect(() => {
    if (!shopId) return;
    let source: EventSource | null = null;
    let poll: ReturnType<typeof setInterval> | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    let opened = false;

    const polling = (on: boolean) => {
      if (on) poll ??= setInterval(() => latest.current(), SHOP_POLL_MS);
      else {
        clearInterval(poll);
        poll = undefined;
      }
    };
    const schedule = () => {
      source?.close();
      source = null;
      polling(true);
      if (!stopped) retry = setTimeout(() => void connect(), Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures++));
    };
    const connect = async () => {
      if (stopped) return;
      if (typeof EventSource === 'undefined') return polling(true);
      try {
        const { ticket } = await liveTicket();
        if (stopped) return;
        const es = new EventSource(shopEventsUrl(ticket, shopId));
        source = es;
        es.addEventListener('change', (m) => {
          let e: LiveEvent;
          try {
            e = JSON.parse((m as MessageEvent<string>).data) as LiveEvent;
          } catch {
            return;
          }
          failures = 0;
          polling(false);
          // The first 'resync' opens the stream (the page has just read the venue); a later one follows a gap.
          if (e.kind === 'shop' || (e.kind === 'resync' && opened)) latest.current();
          opened = true;
        });
        // The ticket is single-use: the browser's own reconnect would be refused, so reconnect with a new one.
        es.onerror = () => {
          if (source === es) schedule();
        };
      } catch {
        schedule();
      }
    };
    void connect();
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(retry);
      polling(false);
    };
  }, [shopId, latest]);
}
