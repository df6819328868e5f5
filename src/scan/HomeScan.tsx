// Route '/' (homeScan). With a code (qrcode, zhcode, qr): the code-link entry — tourist login when there
// is no token, then the scan, then package selection or the cabinet home (src/core/scanRoute.ts). Without one: the landing page.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, errorText, type T } from '../i18n/index.ts';
import { $route, navigate } from '../stores/router.ts';
import { isBoxCode } from '../core/navigation.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { asksAboutOpenOrders, scanTarget } from '../core/scanRoute.ts';
import { checkCabinet, type Cabinet } from '../api/cabinet.ts';
import { ApiError } from '../api/client.ts';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog } from '../ui/feedback.tsx';
import { LangSelect } from '../ui/LangSelect.tsx';
import { currentSystem, storeFor, type System } from '../platform/device.ts';
import { useClientValue } from '../ui/hydration.ts';
import { SignInInstead, ensureToken } from './touristSession.ts';

export default function HomeScan() {
  const route = useStore($route);
  const code = route.query.get('qrcode') || route.query.get('qr') || route.query.get('zhcode') || '';
  return code ? <CodeEntry code={code} key={code} /> : <Landing />;
}

/** Open orders on this account: 'Not now' goes on to the scan's next screen, 'View orders' to the order list. */
async function askAboutOpenOrders(t: T, cabinet: Cabinet): Promise<void> {
  const view = await confirmDialog({
    title: t('scan.openOrdersTitle'),
    text: t('scan.openOrders', { n: cabinet.zujieNum ?? 0 }),
    okLabel: t('scan.viewOrders'),
    cancelLabel: t('scan.later'),
    role: 'dialog',
  });
  navigate(view ? '/order' : scanTarget(cabinet), { replace: true, from: '/' });
}

function CodeEntry({ code }: { code: string }) {
  const t = useT();
  const [error, setError] = useState('');
  const started = useRef(false);

  const run = useCallback(async () => {
    setError('');
    try {
      await ensureToken();
      // A Wi-Fi box's code (stored as mificode by the route rules): its detail, not a cabinet scan.
      if (isBoxCode(code)) return navigate('/packageDetail', { replace: true });
      let cabinet;
      try {
        cabinet = await checkCabinet(code);
      } catch (e) {
        // An expired session: the client cleared it; a fresh tourist session and one more try.
        if (e instanceof ApiError && e.kind === 'unauthorized') {
          await ensureToken();
          cabinet = await checkCabinet(code);
        } else throw e;
      }
      $cabinet.set(cabinet);
      if (asksAboutOpenOrders(cabinet)) void askAboutOpenOrders(t, cabinet);
      else navigate(scanTarget(cabinet), { replace: true });
    } catch (e) {
      if (e instanceof SignInInstead) return;
      setError(e instanceof ApiError ? errorText(e, t) : t('scan.loginFailed'));
    }
  }, [code, t]);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void run();
  }, [run]);

  return (
    <main className="page center">
      {error ? (
        <div className="panel" role="alert">
          <h1 className="title">{t('scan.failedTitle')}</h1>
          <p>{error}</p>
          <button type="button" className="button primary" onClick={() => void run()}>
            {t('common.retry')}
          </button>
          {/* An offline or unusable cabinet: the next step is another cabinet with power banks. */}
          <button type="button" className="button" onClick={() => navigate('/google_map')}>
            {t('check.otherCabinet')}
          </button>
        </div>
      ) : (
        <Loading label={t('scan.scanning')} />
      )}
    </main>
  );
}

function Landing() {
  const t = useT();
  const cabinet = useStore($cabinet);
  // The build renders no user agent ('other': Google Play); an iPhone gets the App Store once mounted.
  const { store, url } = storeFor(useClientValue<System>('other', currentSystem));
  return (
    <>
      <header className="page-header">
        <span className="icon-spacer" aria-hidden="true" />
        <span className="brand">Powerly</span>
      </header>
      <main className="page landing">
        <div className="hero" aria-hidden="true">
          <BatteryIcon />
        </div>
        <h1 className="title">{t('landing.title')}</h1>
        <p className="lead">{t('landing.text')}</p>
        <ol className="steps">
          <li>{t('landing.step1')}</li>
          <li>{t('landing.step2')}</li>
          <li>{t('landing.step3')}</li>
        </ol>
        <a className="button primary block" href={url} target="_blank" rel="noopener noreferrer">
          {store === 'appStore' ? t('landing.appStore') : t('landing.googlePlay')}
        </a>
        {/* A link, not a button: on the prerendered page it works before the JavaScript has hydrated it. */}
        <a className="button block" href={cabinet ? '#/home' : '#/homeMap'}>
          {t('landing.next')}
        </a>
        {/* No menu on the landing page: the language choice sits at its foot, not in the header. */}
        <div className="page-foot-lang">
          <LangSelect />
        </div>
      </main>
    </>
  );
}

export function BatteryIcon() {
  return (
    <svg viewBox="0 0 64 64" width="72" height="72" focusable="false">
      <rect x="14" y="8" width="36" height="52" rx="8" fill="var(--brand)" />
      <rect x="24" y="3" width="16" height="7" rx="2" fill="var(--brand)" />
      <path d="M35 18L24 36h8l-3 14 11-18h-8z" fill="#fff" />
    </svg>
  );
}
