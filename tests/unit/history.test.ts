// The router's history in the standalone app (happy-dom): each in-app entry carries its position in
// history.state, so Back / Forward (popstate, hashchange), hash links and typed hashes keep the position
// right; back() goes back only over in-app entries, then to the fallback route by replace.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { $route, back, backFallbackRoute, canGoBack, navigate } from '../../src/stores/router.ts';
import { startBrowserHistory } from '../../src/stores/browserHistory.ts';
import { $homePathName, $user, $userType, TOURIST } from '../../src/stores/session.ts';

const settle = () => new Promise((r) => setTimeout(r, 30));
const path = () => $route.get().path;

beforeAll(() => startBrowserHistory());
afterEach(() => {
  vi.restoreAllMocks();
  $userType.set('');
  $user.set(null);
  $homePathName.set('');
});

describe('in-app history (browser)', () => {
  it('the first entry has nothing in-app behind it: back() never calls history.back()', async () => {
    const spy = vi.spyOn(history, 'back');
    expect(canGoBack()).toBe(false);
    expect((history.state as { powerly?: { i: number } }).powerly?.i).toBe(0);
    const length = history.length;
    back();
    await settle();
    expect(spy).not.toHaveBeenCalled();
    expect(path()).toBe('/homeMap'); // no account type stored, no stored home: homeMap
    expect(history.length).toBe(length); // by replace
    expect(canGoBack()).toBe(false);
  });

  it('two screens on, Back twice comes back to the first; once more goes to the fallback, never out', async () => {
    navigate('/wallet');
    navigate('/wallet_list?currency=EUR');
    expect(canGoBack()).toBe(true);
    back();
    await settle();
    expect(path()).toBe('/wallet');
    back();
    await settle();
    expect(path()).toBe('/homeMap');
    expect(canGoBack()).toBe(false);
    const spy = vi.spyOn(history, 'back');
    $userType.set(TOURIST);
    back();
    await settle();
    expect(spy).not.toHaveBeenCalled();
    expect(path()).toBe('/selectPakage');
  });

  it('the browser Back and Forward buttons (popstate) keep the position', async () => {
    navigate('/order');
    navigate('/orderDetail?orderId=1');
    history.back();
    await settle();
    expect(path()).toBe('/order');
    expect(canGoBack()).toBe(true);
    history.forward();
    await settle();
    expect(path()).toBe('/orderDetail');
    back();
    await settle();
    back();
    await settle();
    expect(path()).toBe('/selectPakage');
    expect(canGoBack()).toBe(false);
  });

  it('a hash link or a typed hash is a new in-app entry (hashchange)', async () => {
    location.hash = '#/wallet_in?currency=EUR';
    await settle();
    expect(path()).toBe('/wallet_in');
    expect(canGoBack()).toBe(true);
    back();
    await settle();
    expect(path()).toBe('/selectPakage');
  });

  it('replace keeps the position; a reload finds it in history.state', () => {
    navigate('/mine');
    const i = (history.state as { powerly: { i: number } }).powerly.i;
    navigate('/setting', { replace: true });
    expect((history.state as { powerly: { i: number } }).powerly.i).toBe(i);
    expect(canGoBack()).toBe(true);
  });

  it("'from': a step after an await acts only while its screen is current", () => {
    navigate('/wallet_in');
    navigate('/order', { replace: true, from: '/wallet_in' });
    expect(path()).toBe('/order');
    navigate('/mine', { replace: true, from: '/wallet_in' });
    expect(path()).toBe('/order');
    back({ from: '/confirm' });
    expect(path()).toBe('/order');
  });

  it('the fallback: selectPakage for tourists and users with no account, else the stored home', () => {
    $userType.set(TOURIST);
    expect(backFallbackRoute()).toBe('/selectPakage');
    $userType.set('');
    $user.set({
      pId: 1,
      pname: 'Ana',
      pbalance: 0,
      pcurrencyName: 'EUR',
      pyajin: 0,
      pmobile: '370600',
      email: null,
      p_currency: 'EUR',
      userType: 'user',
      alUserId: null,
      p_name: 'Ana',
      p_openID: null,
      pUnionid: null,
    });
    $homePathName.set('/home');
    expect(backFallbackRoute()).toBe('/home');
    $homePathName.set('');
    expect(backFallbackRoute()).toBe('/homeMap');
  });
});
