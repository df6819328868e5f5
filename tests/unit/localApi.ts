// For component tests: a real local HTTP server playing the app API (the client's base points at it, with a
// token), and a root to render into that is unmounted, with its dialogs, after each test.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReactNode } from 'react';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { setApiBase } from '../../src/api/client.ts';
import { $dialogs } from '../../src/ui/feedback.tsx';
import { $token } from '../../src/stores/session.ts';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}

/** `answer` gets each request's path (after the API base) and body; what it returns is sent as JSON (404 when undefined). */
export function localApi(
  answer: (path: string, body: string, req: IncomingMessage) => { status?: number; json: unknown } | undefined,
) {
  let server: Server;
  beforeAll(async () => {
    globalThis.IS_REACT_ACT_ENVIRONMENT = true;
    server = createServer((req, res: ServerResponse) => {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-headers', '*');
      res.setHeader('access-control-allow-methods', 'GET, POST');
      if (req.method === 'OPTIONS') return res.end();
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const r = answer(new URL(req.url!, 'http://x').pathname.replace('/cdb-app-api/v1/app/', ''), body, req);
        res.setHeader('content-type', 'application/json');
        res.statusCode = r?.status ?? (r ? 200 : 404);
        res.end(JSON.stringify(r ? r.json : { code: 404, msg: 'no', data: null }));
      });
    });
    server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cdb-app-api/v1/app/`);
    $token.set('tok-test');
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
}

/** Renders into the document; whatever was rendered is unmounted (and its dialogs cleared) after each test. */
export function renderer() {
  let root: Root | null = null;
  afterEach(() => {
    act(() => root?.unmount());
    $dialogs.set([]);
    root = null;
    document.body.innerHTML = '';
  });
  return (node: ReactNode) => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    act(() => root!.render(node));
  };
}
