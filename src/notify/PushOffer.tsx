// After a rental starts (never on load): offers this device's notifications — the reminders before each charge and
// the receipt at the return. Only where Web Push works and the app is not framed by another site; asks the browser's
// permission only when the rider taps, then subscribes with the server's VAPID key, registers the service worker
// (public/sw.js, its own file) and turns the push channel on in the rider's language and time zone.
import { useState } from 'react';
import { errorText, useT, $activeLang } from '../i18n/index.ts';
import { useReturnsStrings } from './strings.ts';
import { getNoticePrefs, pushKey, saveNoticePrefs, savePushSubscription } from '../api/notify.ts';

type State = 'offer' | 'busy' | 'on' | 'denied' | 'error';

const supported = () =>
  typeof window !== 'undefined' &&
  'serviceWorker' in navigator &&
  'PushManager' in window &&
  'Notification' in window &&
  window.top === window;

function keyBytes(b64u: string) {
  const s = atob(b64u.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64u.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export async function turnOnPush(): Promise<'on' | 'denied'> {
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  await navigator.serviceWorker.register(`${import.meta.env.BASE_URL}sw.js`);
  const reg = await navigator.serviceWorker.ready;
  const { publicKey } = await pushKey();
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  const json = sub.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
  await savePushSubscription({ endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } });
  const prefs = await getNoticePrefs();
  await saveNoticePrefs({
    ...prefs,
    channels: prefs.channels.includes('push') ? prefs.channels : [...prefs.channels, 'push'],
    locale: $activeLang.get(),
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  });
  return 'on';
}

export function PushOffer() {
  const t = useT();
  const [state, setState] = useState<State>(() =>
    supported() && Notification.permission === 'denied' ? 'denied' : 'offer',
  );
  const [error, setError] = useState('');
  const ready = useReturnsStrings();
  if (!supported() || !ready) return null;
  const enable = async () => {
    setState('busy');
    try {
      setState(await turnOnPush());
    } catch (e) {
      setError(errorText(e, t));
      setState('error');
    }
  };
  return (
    <section className="panel push-offer" aria-labelledby="push-offer-title" data-testid="push-offer">
      <h3 id="push-offer-title">{t('push.offerTitle')}</h3>
      <p>{t('push.offerText')}</p>
      <div role="status" aria-live="polite">
        {state === 'on' ? (
          <p>{t('push.enabled')}</p>
        ) : state === 'denied' ? (
          <p>{t('push.denied')}</p>
        ) : state === 'error' ? (
          <p className="error">{error}</p>
        ) : null}
      </div>
      {state === 'offer' || state === 'busy' || state === 'error' ? (
        <button type="button" className="button block" disabled={state === 'busy'} onClick={() => void enable()}>
          {t('push.enable')}
        </button>
      ) : null}
    </section>
  );
}
