// Two small hooks for effects that must not re-run when a value changes but still need its latest version
// (a translation function after a language change, a callback recreated on every render). Both keep React's
// hook rules: nothing is read from a ref during render.
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';

/** The latest value, for effects and callbacks that read it without re-running when it changes. */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  // A layout effect runs before the effects of the same commit, so they always see this render's value.
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}

/** Runs once after the first render (once per visit of a screen), with that render's values. */
export function useMountEffect(effect: () => void | (() => void)): void {
  const first = useRef(effect);
  useEffect(() => first.current(), []);
}

/**
 * For loads that overlap (the first load, a live resync and a change event arrive together): `begin()` at the
 * start of a load returns `isLatest()`, true only while no later load has begun, so an older answer that arrives
 * last never replaces a newer one on screen.
 */
export function useLatestLoad(): () => () => boolean {
  const seq = useRef(0);
  return useCallback(() => {
    const mine = ++seq.current;
    return () => mine === seq.current;
  }, []);
}
