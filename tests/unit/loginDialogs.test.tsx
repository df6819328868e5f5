// Component test (happy-dom): what every sign-in does with its token — user loaded then the
// after-login route; no user returned → retry dialog (cancel clears the token); load error → message dialog
// without cancel, then the token is cleared. Against a local HTTP server playing userInfo.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logout, useCompleteLogin } from '../../src/auth/session.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { $route, navigate } from '../../src/stores/router.ts';
import { $appleIdToken, $loginPath, $token, $user } from '../../src/stores/session.ts';
import { $qrcode } from '../../src/stores/scan.ts';
import { $dialogs, FeedbackHost } from '../../src/ui/feedback.tsx';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

let server: Server;
let replies: string[] = [];
const seenTokens: string[] = [];
const logouts: string[] = [];

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') return res.end();
    seenTokens.push(String(req.headers.token));
    res.setHeader('content-type', 'application/json');
    if (req.url!.includes('/logout')) {
      logouts.push(String(req.headers.token));
      return res.end(JSON.stringify({ code: 0, msg: 'success', data: null }));
    }
    const r = replies.shift() ?? 'user';
    if (r === 'none') return res.end(JSON.stringify({ code: 0, msg: 'success', data: null }));
    if (r === 'error') {
      res.statusCode = 500;
      return res.end(JSON.stringify({ code: 500, msg: 'Server error, please retry.', data: null }));
    }
    res.end(
      JSON.stringify({ code: 0, msg: 'success', data: { pId: 7, pname: '+37061234567', pmobile: '37061234567' } }),
    );
  });
  server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  $dialogs.set([]);
  root = null;
  document.body.innerHTML = '';
  $token.set('');
  $user.set(null);
  $loginPath.set('');
  $qrcode.set('');
});

let finishRef: ((t: string) => Promise<void>) | null = null;
function Harness() {
  const { finish } = useCompleteLogin();
  finishRef = finish;
  return <FeedbackHost />;
}

async function mount() {
  const el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  await act(async () => root!.render(<Harness />));
}

const until = async (fn: () => boolean) => {
  for (let i = 0; i < 100 && !fn(); i++) await act(() => new Promise((r) => setTimeout(r, 20)));
  expect(fn()).toBe(true);
};
const openDialog = () => [...document.querySelectorAll('dialog')].find((d) => d.open || d.hasAttribute('open'));
const button = (name: string) =>
  [...(openDialog()?.querySelectorAll('button') ?? [])].find((b) => b.textContent === name) as
    HTMLButtonElement | undefined;

describe('completing a sign-in', () => {
  it('saves the token, loads the user and goes to the stored login path', async () => {
    navigate('/login');
    $loginPath.set('/order');
    replies = ['user'];
    await mount();
    await act(async () => finishRef!('tok-1'));
    expect($token.get()).toBe('tok-1');
    expect(seenTokens.at(-1)).toBe('tok-1');
    expect($user.get()?.pId).toBe(7);
    expect($route.get().path).toBe('/order');
    expect($loginPath.get()).toBe('');
  });

  it('no user returned: a retry dialog; retry loads the user and goes to the held qrcode', async () => {
    navigate('/login');
    $qrcode.set('PWL-LIS-001');
    replies = ['none', 'user'];
    await mount();
    await act(async () => finishRef!('tok-2'));
    await until(() => Boolean(openDialog()));
    expect(openDialog()!.textContent).toContain('Error getting user information, retry?');
    await act(async () => button('Retry')!.click());
    await until(() => $route.get().path === '/' && $route.get().query.get('qrcode') === 'PWL-LIS-001');
    expect($token.get()).toBe('tok-2');
  });

  it('no user returned, cancel: the token is cleared and nothing navigates', async () => {
    navigate('/otherLogin');
    replies = ['none'];
    await mount();
    await act(async () => finishRef!('tok-3'));
    await until(() => Boolean(openDialog()));
    await act(async () => button('Cancel')!.click());
    expect($token.get()).toBe('');
    expect($route.get().path).toBe('/otherLogin');
  });

  it('a load error: a message dialog without cancel, then the token is cleared', async () => {
    navigate('/otherLogin');
    replies = ['error'];
    await mount();
    await act(async () => finishRef!('tok-4'));
    await until(() => Boolean(openDialog()));
    expect(button('Cancel')).toBeUndefined();
    expect(openDialog()!.textContent).toContain('Server error, please retry.');
    await act(async () => button('OK')!.click());
    expect($token.get()).toBe('');
    expect($route.get().path).toBe('/otherLogin');
  });

  it('logout revokes the token on the server and clears user, token and Apple id token, then /login', async () => {
    navigate('/order');
    $token.set('tok-5');
    $user.set({
      pId: 7,
      pname: 'Ada',
      pbalance: 0,
      pcurrencyName: '€',
      pyajin: 0,
      pmobile: null,
      email: null,
      p_currency: 'EUR',
      userType: 'user',
      alUserId: null,
      p_name: 'Ada',
      p_openID: null,
      pUnionid: null,
    });
    $appleIdToken.set('apple-jwt');
    await logout();
    expect(logouts).toEqual(['tok-5']);
    expect([$token.get(), $user.get(), $appleIdToken.get()]).toEqual(['', null, '']);
    expect($route.get().path).toBe('/login');
  });
});
