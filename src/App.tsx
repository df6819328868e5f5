// The app shell: the hash route → guard → lazily loaded screen.
import { Suspense, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { useStore } from '@nanostores/react';
import { $route, navigate } from './stores/router.ts';
import { $agentOpenId, $token } from './stores/session.ts';
import { $qrcode, $zhcode, storeScanCodes } from './stores/scan.ts';
import { $lang } from './stores/locale.ts';
import { guard, routeOf, scanCodesFrom } from './core/routes.ts';
import { useSignInRouting } from './auth/routing.ts';
import { mapRouteLang } from './core/lang.ts';
import { useT } from './i18n/index.ts';
import { Loading } from './ui/Loading.tsx';
import { FeedbackHost } from './ui/feedback.tsx';
import { DelayedLoading, ScreenBoundary, lazyScreen as lazy } from './ui/lazyScreen.tsx';
import { SideMenu } from './ui/SideMenu.tsx';
import { maybeDebugConsole, maybeWeChatConfig, routeRedirect } from './shell/navigationEffects.ts';

type Screen = LazyExoticComponent<ComponentType>;

const Order = lazy(() => import('./orders/Order.tsx'));
const GoogleMap = lazy(() => import('./map/GoogleMap.tsx'));
export const SCREENS: Record<string, Screen> = {
  '/': lazy(() => import('./scan/HomeScan.tsx')),
  '/home': lazy(() => import('./rent/Home.tsx')),
  '/confirm': lazy(() => import('./pay/Confirm.tsx')),
  '/borrowSuccess': lazy(() => import('./rent/BorrowSuccess.tsx')),
  '/result': lazy(() => import('./rent/Result.tsx')),
  '/order': Order,
  '/pastOrder': Order,
  '/orderDetail': lazy(() => import('./orders/OrderDetail.tsx')),
  '/mine': lazy(() => import('./info/Mine.tsx')),
  '/aboutUs': lazy(() => import('./info/AboutUs.tsx')),
  '/contactUs': lazy(() => import('./info/ContactUs.tsx')),
  '/help': lazy(() => import('./info/Help.tsx')),
  '/setting': lazy(() => import('./info/Setting.tsx')),
  '/shop': lazy(() => import('./info/Shop.tsx')),
  '/usage': lazy(() => import('./info/Usage.tsx')),
  '/invoiceOrderDtl': lazy(() => import('./info/InvoiceOrderDtl.tsx')),
  '/homeMap': lazy(() => import('./map/HomeMap.tsx')),
  '/google_map': GoogleMap,
  '/map': GoogleMap,
  '/nearby_shop': lazy(() => import('./map/NearbyShop.tsx')),
  '/login': lazy(() => import('./auth/Login.tsx')),
  '/otherLogin': lazy(() => import('./auth/OtherLogin.tsx')),
  '/login_wechat': lazy(() => import('./auth/LoginWechat.tsx')),
  '/login_alipay': lazy(() => import('./auth/LoginAlipay.tsx')),
  '/wallet': lazy(() => import('./wallet/Wallet.tsx')),
  '/wallet_in': lazy(() => import('./wallet/WalletIn.tsx')),
  '/wallet_out': lazy(() => import('./wallet/WalletOut.tsx')),
  '/wallet_list': lazy(() => import('./wallet/WalletList.tsx')),
  '/aboutUsApp': lazy(() => import('./info/AboutUsApp.tsx')),
  '/contactUsApp': lazy(() => import('./info/ContactUsApp.tsx')),
  '/selectPakage': lazy(() => import('./rent/SelectPakage.tsx')),
  '/cdbUsage': lazy(() => import('./rent/CdbUsage.tsx')),
  '/orderStatus': lazy(() => import('./orders/OrderStatus.tsx')),
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
    // Navigation rules of spec §2 (src/core/navigation.ts): debug console, WeChat, Wi-Fi scan ids.
    maybeDebugConsole(route.query);
    maybeWeChatConfig();
    const to = routeRedirect(route);
    if (to) navigate(to, { replace: true });
  }, [route]);

  const verdict = guard(route.path, { token, qrcode, zhcode });
  const redirect = verdict.allow ? '' : verdict.redirect;
  const signInRedirect = useSignInRouting(route, redirect);
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);

  const Screen = SCREENS[routeOf(route.path)] ?? NotFound;
  return (
    <>
      <ScreenBoundary resetKey={route.path}>
        <Suspense fallback={<DelayedLoading />}>{verdict.allow && !signInRedirect ? <Screen key={route.path} /> : <Loading label={t('common.loading')} />}</Suspense>
      </ScreenBoundary>
      <SideMenu />
      <FeedbackHost />
    </>
  );
}
