// web-vitals from every shape (app, iframe, element, webview) to the server's performance store.
// What is sent: the shape, the metric name, its value and rating, and the route path (no query, so no
// token, order id or code). Nothing about the user. Sent with sendBeacon as text/plain (no preflight).

/** The app API's base (src/api/client.ts DEFAULT_API_BASE); not imported, so the element stays small. */
const API_BASE = '/cdb-app-api/v1/app/';

import type { Vital } from '../contract/embed.ts';

export type Shape = Vital['shape'];

/** One report as POST embed/vitals takes it (src/contract/embed.ts). */
export type VitalReport = Vital;

/** The route path of a hash like "#/orderDetail?orderId=1" → "/orderDetail"; ids in a path are dropped. */
export function routePath(hash: string): string {
  const path = hash.replace(/^#/, '').split('?')[0] || '/';
  const base = path.match(/^\/(aboutUsApp|contactUsApp)(\/|$)/);
  return base ? `/${base[1]}` : path.slice(0, 60);
}

export function reportWebVitals(shape: Shape, endpoint = `${API_BASE}embed/vitals`): void {
  if (typeof navigator === 'undefined' || typeof navigator.sendBeacon !== 'function') return;
  const send = (m: Pick<Vital, 'name' | 'value' | 'rating'>) => {
    const report: VitalReport = {
      shape,
      name: m.name,
      value: Math.round(m.value * 1000) / 1000,
      rating: m.rating,
      route: shape === 'element' ? '' : routePath(location.hash),
    };
    navigator.sendBeacon(endpoint, new Blob([JSON.stringify(report)], { type: 'text/plain' }));
  };
  void import('web-vitals').then(({ onCLS, onFCP, onINP, onLCP, onTTFB }) => {
    onCLS(send);
    onFCP(send);
    onINP(send);
    onLCP(send);
    onTTFB(send);
  });
}
