// The live event stream (server-sent events): open while a screen listens and a session exists; says which order
// or the wallet changed, and screens refetch through their ordinary calls. When the stream is down (no
// EventSource, a proxy that buffers, the server restarting) `$liveState` is not 'open' and screens fall back to
// polling at the order screen's intervals. Reconnects with a fresh ticket and backoff; each (re)open sends 'resync'.
import { atom, onMount } from 'nanostores';
import { liveEventsUrl, liveTicket, type LiveEvent } from '../api/live.ts';
import { $token } from './session.ts';

export type LiveState = 'off' | 'connecting' | 'open';
export const $liveState = atom<LiveState>('off');

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();

/** Calls `fn` for every event while subscribed (keep `$liveState` subscribed too: it holds the connection). */
export function onLiveEvent(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

const MAX_BACKOFF_MS = 30_000;

onMount($liveState, () => {
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let stopped = false;
  let generation = 0;

  const close = () => {
    source?.close();
    source = null;
    clearTimeout(retry);
  };

  const connect = async () => {
    close();
    const mine = ++generation;
    if (stopped || !$token.get() || typeof EventSource === 'undefined') {
      $liveState.set('off');
      return;
    }
    $liveState.set('connecting');
    try {
      const { ticket } = await liveTicket();
      if (stopped || mine !== generation) return;
      const es = new EventSource(liveEventsUrl(ticket));
      source = es;
      es.addEventListener('change', (m) => {
        failures = 0;
        $liveState.set('open');
        let e: LiveEvent;
        try {
          e = JSON.parse((m as MessageEvent<string>).data) as LiveEvent;
        } catch {
          return;
        }
        for (const fn of [...listeners]) fn(e);
      });
      // The ticket is single-use: the browser's own reconnect would be refused, so reconnect with a new one.
      es.onerror = () => {
        if (source !== es) return;
        schedule();
      };
    } catch {
      if (mine === generation) schedule();
    }
  };

  const schedule = () => {
    close();
    $liveState.set('connecting');
    if (stopped) return;
    const wait = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** failures++);
    retry = setTimeout(() => void connect(), wait);
  };

  const offToken = $token.listen(() => void connect());
  void connect();
  return () => {
    stopped = true;
    generation++;
    offToken();
    close();
    $liveState.set('off');
  };
});
