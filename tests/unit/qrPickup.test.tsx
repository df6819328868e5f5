// Component test (happy-dom): the pickup by a QR code shown to the box does not wait forever. Against a real local
// HTTP server playing the API: while the box has not read the code the dialog polls; past its time it closes and
// says the box did not read the code; a box that read it opens the box.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QrPickupDialog } from '../../src/mifi/QrPickup.tsx';
import { $dialogs } from '../../src/ui/feedback.tsx';
import { setApiBase } from '../../src/api/client.ts';
import { addMessages } from '../../src/i18n/index.ts';
import { $token } from '../../src/stores/session.ts';
import type { MifiPackage } from '../../src/api/mifi.ts';
import mifiEn from '../../locales/mifi/en-US.json';
import { until } from './until.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

let server: Server;
/** What checkPickUp answers, and how often it was asked. */
let answer = { status: 0 } as Record<string, unknown>;
let polls = 0;

beforeAll(async () => {
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  addMessages('en-US', mifiEn);
  server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') return res.end();
    res.setHeader('content-type', 'application/json');
    if (new URL(req.url!, 'http://x').pathname.endsWith('/chargenow/mifi/checkPickUp')) {
      polls++;
      return res.end(JSON.stringify({ code: 0, msg: 'success', data: answer }));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ code: 404, msg: 'no', data: null }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
  $token.set('tok-test');
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  $dialogs.set([]);
  root = null;
  document.body.innerHTML = '';
});

const pkg = { orderId: 'P-QR-1', productSendSn: '' } as MifiPackage;

function mount(timeoutMs: number) {
  const seen = { closed: 0, picked: '' };
  const host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  act(() => root!.render(
    <QrPickupDialog pkg={pkg} timeoutMs={timeoutMs} onClose={() => seen.closed++} onPicked={(p) => (seen.picked = p.productSendSn)} onRefresh={() => {}} />,
  ));
  return seen;
}

describe('pickup by a QR code shown to the box', () => {
  it('stops waiting past its time: the dialog closes and says the box did not read the code', async () => {
    answer = { status: 0 };
    polls = 0;
    const seen = mount(1);
    expect(document.body.textContent).toContain('Waiting for the box…');
    await until(() => seen.closed > 0);
    expect(polls).toBeGreaterThan(0);
    expect($dialogs.get().map((d) => d.title)).toEqual(['The box did not read the code']);
  });

  it('a box that read the code in time opens it, without the timeout message', async () => {
    answer = { status: 2, productSendSn: 'MF-LIS-0002' };
    const seen = mount(60_000);
    await until(() => seen.picked);
    expect(seen.picked).toBe('MF-LIS-0002');
    expect($dialogs.get()).toEqual([]);
  });
});
