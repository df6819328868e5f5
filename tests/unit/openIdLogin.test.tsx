// Component test (happy-dom): the WeChat and Alipay code sign-ins go through the openId exchange and keep its
// signed openid; a returning person signs in with it (loginByOpenId) without authorising again; a refused one is
// dropped and the authorise button shows; logout forgets it. Against a local HTTP server playing the app API.
import { act } from 'react';
import { describe, expect, it, beforeEach } from 'vitest';
import { CodeLogin } from '../../src/auth/CodeLogin.tsx';
import { $openIdLogin } from '../../src/auth/openId.ts';
import { logout } from '../../src/auth/session.tsx';
import { navigate, $route } from '../../src/stores/router.ts';
import { $token, $user } from '../../src/stores/session.ts';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

const calls: { path: string; body: string }[] = [];
let refuseOpenId = false;
localApi((path, body) => {
  calls.push({ path, body });
  if (path === 'openId')
    return {
      json: {
        code: 0,
        msg: 'success',
        data: { token: 'tok-exchanged', openId: 'oWx1', openIdSign: 'wechat.1900000000.mac', user: {} },
      },
    };
  if (path === 'loginByOpenId')
    return refuseOpenId
      ? { status: 422, json: { code: 422, msg: 'This sign-in has expired. Please authorise again.', data: null } }
      : { json: { code: 0, msg: 'success', data: 'tok-again' } };
  if (path === 'userInfo')
    return { json: { code: 0, msg: 'success', data: { pId: 9, pname: 'Wei', userType: 'user' } } };
  if (path === 'logout') return { json: { code: 0, msg: 'success', data: null } };
  return undefined;
});
const render = renderer();

beforeEach(() => {
  calls.length = 0;
  refuseOpenId = false;
  $openIdLogin.set('');
  $token.set('');
  $user.set(null);
});

describe('WeChat and Alipay sign-in through the openId exchange', () => {
  it('a code is exchanged (POST openId) and its signed openid kept', async () => {
    act(() => navigate('/login_wechat?code=sbx_abc', { replace: true }));
    render(<CodeLogin provider="wechat" />);
    await until(() => $token.get() === 'tok-exchanged');
    expect(calls[0]).toMatchObject({ path: 'openId' });
    expect(new URLSearchParams(calls[0]!.body).get('code')).toBe('sbx_abc');
    expect(new URLSearchParams(calls[0]!.body).get('type')).toBe('wechat');
    expect($openIdLogin.get()).toBe('oWx1\nwechat.1900000000.mac');
  });

  it('a returning person signs in with the kept signed openid, without authorising again', async () => {
    $openIdLogin.set('oWx1\nwechat.1900000000.mac');
    act(() => navigate('/login_wechat', { replace: true }));
    render(<CodeLogin provider="wechat" />);
    await until(() => $token.get() === 'tok-again');
    const call = calls.find((c) => c.path === 'loginByOpenId')!;
    expect(Object.fromEntries(new URLSearchParams(call.body))).toEqual({
      openId: 'oWx1',
      openIdSign: 'wechat.1900000000.mac',
    });
    expect(calls.some((c) => c.path === 'authCodeUrl')).toBe(false);
    await until(() => $route.get().path !== '/login_wechat');
  });

  it('a refused signed openid is dropped and the authorise button shows; logout forgets a kept one', async () => {
    refuseOpenId = true;
    $openIdLogin.set('oWx1\nwechat.1.mac');
    act(() => navigate('/login_wechat', { replace: true }));
    render(<CodeLogin provider="wechat" />);
    await until(() => $openIdLogin.get() === '');
    await until(() => !!document.querySelector('button:not([disabled])'));
    expect($token.get()).toBe('');
    $openIdLogin.set('oWx1\nwechat.1900000000.mac');
    $token.set('tok');
    await act(() => logout());
    expect($openIdLogin.get()).toBe('');
  });
});
