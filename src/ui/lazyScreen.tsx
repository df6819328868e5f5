// Lazily loaded screens: a chunk that has not arrived within 120 s fails (spec §9 chunk load timeout) and the
// screen boundary offers a reload; the loading fallback appears only when a chunk takes longer than 3 s
// (spec §9 loading fallback), so fast navigations never flash a spinner.
import { Component, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import { Loading } from './Loading.tsx';

export const CHUNK_LOAD_TIMEOUT_MS = 120_000;
export const LOADING_FALLBACK_MS = 3_000;

export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
}

/** Rejects with ChunkLoadError when `p` has not settled within `ms`. */
export function withChunkTimeout<T>(p: Promise<T>, ms = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChunkLoadError(`chunk not loaded within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** React.lazy with the chunk load timeout. */
export function lazyScreen<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  return lazy(() => withChunkTimeout(load()));
}

/** The Suspense fallback: nothing for the first 3 s, then the loading indicator. */
export function DelayedLoading({ delayMs = LOADING_FALLBACK_MS }: { delayMs?: number }) {
  const t = useT();
  const [show, setShow] = useState(delayMs <= 0);
  useEffect(() => {
    const id = setTimeout(() => setShow(true), delayMs);
    return () => clearTimeout(id);
  }, [delayMs]);
  return show ? <Loading label={t('common.loading')} /> : <div className="screen-pending" aria-busy="true" />;
}

function ChunkFailed({ onRetry }: { onRetry: () => void }) {
  const t = useT();
  return (
    <main className="page center">
      <div className="notice" role="alert">
        <p>{t('shell.chunkFailed')}</p>
        <button type="button" className="button primary" onClick={onRetry}>
          {t('common.retry')}
        </button>
      </div>
    </main>
  );
}

/** Catches a screen that failed to load (timeout, network) or to render; retry reloads the page. */
export class ScreenBoundary extends Component<{ children: ReactNode; resetKey: string }, { failed: boolean; key: string }> {
  override state = { failed: false, key: this.props.resetKey };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  static getDerivedStateFromProps(p: { resetKey: string }, s: { failed: boolean; key: string }) {
    return p.resetKey !== s.key ? { failed: false, key: p.resetKey } : null;
  }
  override componentDidCatch(error: unknown) {
    console.error('screen failed', error);
  }
  override render() {
    return this.state.failed ? <ChunkFailed onRetry={() => location.reload()} /> : this.props.children;
  }
}
