// The rider app's service worker, its own file (never in the app's bundle): it shows the receipts and reminders the
// server sends by Web Push (server/src/modules/notify/channels.ts: {title, body, tag, path, kind}), one per tag
// (a repeated delivery replaces, never adds), and opens the order when one is tapped.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let d;
  try {
    d = event.data ? event.data.json() : {};
  } catch {
    d = { body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(
    self.registration.showNotification(d.title || 'Powerly', {
      body: d.body || '',
      tag: d.tag,
      data: { path: d.path || '/order', kind: d.kind },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const path = (event.notification.data && event.notification.data.path) || '/order';
  const url = new URL(`/#${path}`, self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      const open = list.find((c) => new URL(c.url).origin === self.location.origin);
      if (open) return open.navigate(url).then((c) => (c || open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
