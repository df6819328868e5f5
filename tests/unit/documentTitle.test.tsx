// document.title per route: the route table's title key, translated, and the product name.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDocumentTitle } from '../../src/shell/navigationEffects.ts';
import { matchRoute } from '../../src/routes.ts';
import { $activeLang, loadLocale } from '../../src/i18n/index.ts';
import { $lang } from '../../src/stores/locale.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}
beforeAll(() => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
});
afterAll(() => {
  $lang.set('en-US');
  $activeLang.set('en-US');
});

function Title({ k }: { k: string | undefined }) {
  useDocumentTitle(k);
  return null;
}

describe('document title', () => {
  it('is the route title in the active language, then the product', async () => {
    const el = document.createElement('div');
    const root = createRoot(el);
    const wallet = matchRoute('/wallet')?.route.title;
    act(() => root.render(<Title k={wallet} />));
    expect(document.title).toBe('Wallet · Powerly');
    act(() => root.render(<Title k={matchRoute('/map')?.route.title} />));
    expect(document.title).toBe('Nearby venues · Powerly');
    $lang.set('lt-LT');
    await act(() => loadLocale('lt-LT'));
    act(() => root.render(<Title k={wallet} />));
    expect(document.title).toBe('Piniginė · Powerly');
    act(() => root.render(<Title k={undefined} />));
    expect(document.title).toBe('Powerly');
    act(() => root.unmount());
  });
});
