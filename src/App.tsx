// The app shell: the hash route → guard → lazily loaded screen.
import { lazy, Suspense, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { useStore } from '@nanostores/react';
import { $route, navigate } from './stores/router.ts';
import { $agentOpenId, $token } from './stores/session.ts';
import { $qrcode, $zhcode, storeScanCodes } from './stores/scan.ts';
import { $lang } from './stores/locale.ts';
import { guard, routeOf, scanCodesFrom } from './core/routes.ts';
import { mapRouteLang } from './core/lang.ts';
import { useT } from './i18n/index.ts';
import { Loading } from './ui/Loading.tsx';
import { Toaster } from './ui/toast.tsx';

type Screen = LazyExoticComponent<ComponentType>;

const Order = lazy(() => import('./orders/Order.tsx'));
export const SCREENS: Record<string, Screen> = {
  '/': lazy(() => import('./scan/HomeScan.tsx')),
  '/home': lazy(() => import('./rent/Home.tsx')),
  '/confirm': lazy(() => import('./pay/Confirm.tsx')),
  '/borrowSuccess': lazy(() => import('./rent/BorrowSuccess.tsx')),
  '/result': lazy(() => import('./rent/Result.tsx')),
  '/order': Order,
  '/pastOrder': Order,
  '/orderDetail': lazy(() => import('./orders/OrderDetail.tsx')),
  '/selectPakage': lazy(() => import('./rent/SelectPakage.tsx')),
  '/cdbUsage': lazy(() => import('./rent/CdbUsage.tsx')),
};
const NotFound = lazy(() => import('./ui/NotFound.tsx'));

export function App() {
  const t = useT();
  const route = useStore($route);
  const token = useStore($token);
  const qrcode = useStore($qrcode);
  const zhcode = useStore($zhcode);

  // Route side effects: scan codes (home, homeMap, homeScan) and the lang parameter (spec §1, §2).
  useEffect(() => {
    const codes = scanCodesFrom(route.path, route.query);
    if (codes) storeScanCodes(codes);
    const lang = mapRouteLang(route.query.get('lang'));
    if (lang) $lang.set(lang);
    // Agent context (spec §6): sent on every request once a link carried it.
    const agent = route.query.get('agentOpenId');
    if (agent) $agentOpenId.set(agent);
  }, [route]);

  const verdict = guard(route.path, { token, qrcode, zhcode });
  const redirect = verdict.allow ? '' : verdict.redirect;
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);

  const Screen = SCREENS[routeOf(route.path)] ?? NotFound;
  return (
    <>
      <Suspense fallback={<Loading label={t('common.loading')} />}>{verdict.allow ? <Screen key={route.path} /> : <Loading label={t('common.loading')} />}</Suspense>
      <Toaster />
    </>
  );
}
