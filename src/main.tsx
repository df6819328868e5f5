// Entry of the standalone app (index.html).
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { loadLocale, startI18n } from './i18n/index.ts';
import { $lang } from './stores/locale.ts';
import { onUnauthorized } from './api/client.ts';
import { $isTourist, $loginPath } from './stores/session.ts';
import { clearSignIn } from './stores/session.ts';
import { loginPathFor, unauthorizedTarget } from './core/routes.ts';
import { $qrcode, $zhcode } from './stores/scan.ts';
import { $route, navigate } from './stores/router.ts';
import './ui/app.css';
import { leaveSecondaryDomain } from './shell/navigationEffects.ts';
import { reportWebVitals } from './platform/vitals.ts';

// A code link may arrive as https://host/?qrcode=X (no hash): move its query into the hash route.
if (!location.hash && /[?&](qrcode|zhcode|qr|lang)=/.test(location.search)) {
  history.replaceState(null, '', `${location.pathname}#/${location.search}`);
}

// 401: the session is gone. A held scan code lets the code-link entry make a new tourist session;
// otherwise the login screen (a later slice).
onUnauthorized(() => {
  const wasTourist = $isTourist.get();
  clearSignIn();
  const { path, query } = $route.get();
  if (path === '/') return; // the entry retries by itself
  const to = unauthorizedTarget(wasTourist, $qrcode.get(), $zhcode.get());
  if (to === '/login') $loginPath.set(loginPathFor(path, query));
  navigate(to, { replace: true });
});

// WeChat on a secondary domain: go to the main host, keeping the scan code (spec §2); render nothing here.
const leaving = leaveSecondaryDomain();

// A stored non-English language: render once its table is in (no English flash); at most a short wait.
const first = $lang.get() === 'en-US' ? Promise.resolve() : Promise.race([loadLocale($lang.get()), new Promise((r) => setTimeout(r, 1500))]);
void first.finally(() => {
  if (leaving) return;
  startI18n();
  createRoot(document.getElementById('root')!).render(<App />);
});

// Web vitals of this shape (the web-view pages count apart from the app).
reportWebVitals(/^#\/(aboutUsApp|contactUsApp)(\/|\?|$)/.test(location.hash) ? 'webview' : 'app');
