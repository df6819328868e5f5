// The router inside the embed's iframe (happy-dom): pushState or history.back() there would move the host
// page's joint session history, so the app's entries live in memory and the iframe's URL follows by
// replaceState only. Back never leaves the app, and hash links inside the frame are taken over.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { $route, back, canGoBack, navigate, startMemoryHistory } from '../../src/stores/router.ts';

const spies: ReturnType<typeof vi.spyOn>[] = [];
beforeAll(() => {
  startMemoryHistory();
  spies.push(
    vi.spyOn(history, 'pushState'),
    vi.spyOn(history, 'back'),
    vi.spyOn(history, 'go'),
    vi.spyOn(history, 'forward'),
  );
});
afterAll(() => vi.restoreAllMocks());

describe('memory history (embed)', () => {
  it('navigates and goes back without ever adding or moving a session-history entry', () => {
    const length = history.length;
    navigate('/?qrcode=PWL-1', { replace: true });
    navigate('/selectPakage');
    navigate('/home');
    expect(location.hash).toBe('#/home');
    expect(canGoBack()).toBe(true);
    back();
    expect($route.get().path).toBe('/selectPakage');
    expect(location.hash).toBe('#/selectPakage');
    back();
    expect($route.get().path).toBe('/');
    expect($route.get().query.get('qrcode')).toBe('PWL-1');
    expect(canGoBack()).toBe(false);
    back(); // nothing behind: the fallback, by replace
    expect($route.get().path).toBe('/homeMap');
    expect(history.length).toBe(length);
    for (const s of spies) expect(s).not.toHaveBeenCalled();
  });

  it('a new screen after going back drops the entries ahead', () => {
    navigate('/order');
    navigate('/orderDetail');
    back();
    navigate('/wallet');
    back();
    expect($route.get().path).toBe('/order');
  });

  it('a hash link inside the frame is an in-app navigation, not a followed link', () => {
    const length = history.length;
    const a = document.createElement('a');
    a.href = '#/wallet_in?currency=EUR';
    document.body.append(a);
    a.click();
    a.remove();
    expect($route.get().path).toBe('/wallet_in');
    expect($route.get().query.get('currency')).toBe('EUR');
    expect(history.length).toBe(length);
    back();
    expect($route.get().path).toBe('/order');
    for (const s of spies) expect(s).not.toHaveBeenCalled();
  });
});
