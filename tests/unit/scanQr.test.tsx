// Component test (happy-dom): /scanQr, the camera scan of a cabinet's code, against a real local HTTP server
// playing the API. It is a screen (not the not-found one); without a camera it says why and keeps the typed code;
// a code read for a package goes to that package's pickup at the cabinet, which asks the cabinet to release the box.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import ScanQr, { scanQrTarget } from '../../src/mifi/ScanQr.tsx';
import PickUp from '../../src/mifi/PickUp.tsx';
import { $route, navigate } from '../../src/stores/router.ts';
import { matchRoute } from '../../src/routes.ts';
import { localApi, renderer } from './localApi.ts';
import { until } from './until.ts';

const pickups: Record<string, unknown>[] = [];
localApi((path, body) => {
  if (path === 'chargenow/mifi/pickup') {
    pickups.push(JSON.parse(body) as Record<string, unknown>);
    return { json: { code: 0, msg: 'success', data: { orderId: 'P-1' } } };
  }
  if (path === 'chargenow/mifi/package') {
    return {
      json: {
        code: 0,
        msg: 'success',
        data: { orderId: 'P-1', deviceOrderStatus: 5, skuId: 's', country: 'PT', currency: 'EUR' },
      },
    };
  }
  if (path === 'chargenow/mifi/checkPickUp') return { json: { code: 0, msg: 'success', data: { status: 0 } } };
  return undefined;
});
const render = renderer();

describe('/scanQr', () => {
  it('has its own screen', async () => {
    const screen = matchRoute('/scanQr')?.route.screen;
    expect(screen).toBeTypeOf('function');
    expect((await screen!()).default).toBe(ScanQr);
  });

  it('a code read for a package leads to its pickup at that cabinet; without a package, to the cabinet’s scan', () => {
    expect(scanQrTarget('https://powerly.example/?qrcode=LIS-0001', 'P-1')).toBe('/pickUp?orderId=P-1&qrcode=LIS-0001');
    expect(scanQrTarget(' LIS-0001 ', '')).toBe('/?qrcode=LIS-0001');
    expect(scanQrTarget('   ', 'P-1')).toBeNull();
  });

  it('without a camera says why, and the typed code picks the package up at that cabinet', async () => {
    navigate('/scanQr?orderId=P-1');
    render(<ScanQr />);
    await until(() => document.querySelector('[role="alert"]'));
    expect(document.querySelector('[role="alert"]')!.textContent).toBe('This browser does not support camera streams.');
    const input = document.querySelector<HTMLInputElement>('#scan-qr-code')!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, 'LIS-0001');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => document.querySelector<HTMLButtonElement>('.scan-manual button')!.click());
    expect($route.get().path).toBe('/pickUp');
    expect($route.get().query.get('qrcode')).toBe('LIS-0001');
  });

  it('the pickup reached from the scan asks that cabinet for the box at once', async () => {
    pickups.length = 0;
    navigate('/pickUp?orderId=P-1&qrcode=LIS-0001');
    render(<PickUp />);
    await until(() => pickups.length > 0);
    expect(pickups[0]).toEqual({ qrcode: 'LIS-0001', pickOrderId: 'P-1' });
  });
});
