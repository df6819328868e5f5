// Entry of the standalone app (index.html).
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { loadLocale, startI18n } from './i18n/index.ts';
import { $lang } from './stores/locale.ts';
import { onUnauthorized } from './api/client.ts';
import './ui/app.css';
import { handleUnauthorized, startNavigation } from './shell/navigationEffects.ts';
import { reportWebVitals } from './platform/vitals.ts';
import { startBrowserHistory } from './stores/browserHistory.ts';

// The browser's history, each in-app entry marked with its position (not the embed's in-memory one).
startBrowserHistory();

// 401: the session is gone (a new tourist session through the code link, or the login screen).
onUnauthorized(handleUnauthorized);

// A code link without a hash becomes its hash route; WeChat on a secondary domain goes to the main host
// keeping the scan code (spec §2): then render nothing here.
const leaving = startNavigation();

// A stored non-English language: render once its table is in (no English flash); at most a short wait.
const first = $lang.get() === 'en-US' ? Promise.resolve() : Promise.race([loadLocale($lang.get()), new Promise((r) => setTimeout(r, 1500))]);
void first.finally(() => {
  if (leaving) return;
  startI18n();
  createRoot(document.getElementById('root')!).render(<App />);
});

// Web vitals of this shape (the web-view pages count apart from the app).
reportWebVitals(/^#\/(aboutUsApp|contactUsApp)(\/|\?|$)/.test(location.hash) ? 'webview' : 'app');
