// Lazily loaded screens: a chunk that has not arrived within 120 s fails (chunk load timeout) and the
// screen boundary offers a reload. While a screen loads (loading fallback 3 s): nothing for the
// first 200 ms (fast navigations never flash), then a spinner, and after 3 s still loading the fallback
// message with a reload — never a blank screen for seconds.
import { Component, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import { Loading } from './Loading.tsx';

export const CHUNK_LOAD_TIMEOUT_MS = 120_000;
/** After this long still loading, the fallback message with a reload appears. */
export const LOADING_FALLBACK_MS = 3_000;
/** The spinner waits this long, so a screen that arrives at once never flashes one. */
export const SPINNER_DELAY_MS = 200;

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

/** The Suspense fallback: blank for 200 ms, then a spinner, then (after 3 s) the slow-loading message. */
export function DelayedLoading({
  spinnerMs = SPINNER_DELAY_MS,
  fallbackMs = LOADING_FALLBACK_MS,
  onReload = () => location.reload(),
}: {
  spinnerMs?: number;
  fallbackMs?: number;
  onReload?: () => void;
}) {
  const t = useT();
  const [stage, setStage] = useState<'pending' | 'spinner' | 'slow'>(spinnerMs <= 0 ? 'spinner' : 'pending');
  useEffect(() => {
    const spin = setTimeout(() => setStage((s) => (s === 'pending' ? 'spinner' : s)), spinnerMs);
    const slow = setTimeout(() => setStage('slow'), fallbackMs);
    return () => {
      clearTimeout(spin);
      clearTimeout(slow);
    };
  }, [spinnerMs, fallbackMs]);
  if (stage === 'pending') return <div className="screen-pending" aria-busy="true" />;
  return (
    <main className="page center" aria-busy="true">
      <Loading label={t('common.loading')} />
      {stage === 'slow' ? (
        <div className="notice screen-slow" role="status">
          <p>{t('shell.slowLoading')}</p>
          <button type="button" className="button primary" onClick={onReload}>
            {t('shell.reload')}
          </button>
        </div>
      ) : null}
    </main>
  );
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
export class ScreenBoundary extends Component<
  { children: ReactNode; resetKey: string },
  { failed: boolean; key: string }
> {
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
