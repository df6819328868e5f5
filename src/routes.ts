// The one route table of the app (spec §2): path, access, aliases and the optional trailing segment, the
// document title's i18n key, and the screen's lazy loader. The router's matching, the guard, the screen the
// shell renders and the document title all read it. The pure rules over it are in src/core/routes.ts (route
// mechanics, guard) and src/core/navigation.ts (the spec's navigation rules).
//
// Every route of the spec is listed, with its access; routes whose screen is not built yet (the Wi-Fi and
// package flows, the payment-method pages, …) have no `screen` and show the not-found screen until one is
// added here. Loaders stay `() => import(...)` so no screen joins the first load.
import type { ComponentType } from 'react';
import { routeTable, type RouteMeta } from './core/routes.ts';

export interface RouteDef extends RouteMeta {
  /** The screen's chunk; none yet → the not-found screen. */
  screen?: () => Promise<{ default: ComponentType }>;
}

export const ROUTES: readonly RouteDef[] = [
  // ---- Public (ignoreAuth) ----
  { path: '/', access: 'public', title: 'routes.homeScan', screen: () => import('./scan/HomeScan.tsx') },
  { path: '/home', access: 'public', title: 'routes.home', screen: () => import('./rent/Home.tsx') },
  { path: '/homeMap', access: 'public', title: 'routes.homeMap', screen: () => import('./map/HomeMap.tsx') },
  { path: '/login', access: 'public', title: 'routes.login', screen: () => import('./auth/Login.tsx') },
  { path: '/otherLogin', access: 'public', title: 'routes.login', screen: () => import('./auth/OtherLogin.tsx') },
  { path: '/login_wechat', access: 'public', title: 'routes.login', screen: () => import('./auth/LoginWechat.tsx') },
  { path: '/login_alipay', access: 'public', title: 'routes.login', screen: () => import('./auth/LoginAlipay.tsx') },
  { path: '/aboutUs', access: 'public', title: 'routes.aboutUs', screen: () => import('./info/AboutUs.tsx') },
  { path: '/aboutUsApp', param: 'lang', access: 'public', title: 'routes.aboutUs', screen: () => import('./info/AboutUsApp.tsx') },
  { path: '/contactUs', access: 'public', title: 'routes.contactUs', screen: () => import('./info/ContactUs.tsx') },
  { path: '/contactUsApp', param: 'lang', access: 'public', title: 'routes.contactUs', screen: () => import('./info/ContactUsApp.tsx') },
  { path: '/invoiceOrderDtl', access: 'public', title: 'routes.invoice', screen: () => import('./info/InvoiceOrderDtl.tsx') },
  // The token-less order detail (spec §2): readable with the order's share sign.
  { path: '/orderStatus', access: 'public', title: 'routes.orderStatus', screen: () => import('./orders/OrderStatus.tsx') },
  { path: '/payMethod', access: 'public' },
  { path: '/MercadoPago', access: 'public' },
  { path: '/loginborrow', access: 'public' },
  { path: '/MonriPay', access: 'public' },

  // ---- Login-required ----
  { path: '/confirm', access: 'private', title: 'routes.confirm', screen: () => import('./pay/Confirm.tsx') },
  { path: '/borrowSuccess', access: 'private', title: 'routes.borrowSuccess', screen: () => import('./rent/BorrowSuccess.tsx') },
  { path: '/result', access: 'private', title: 'routes.result', screen: () => import('./rent/Result.tsx') },
  { path: '/selectPakage', access: 'private', title: 'routes.selectPakage', screen: () => import('./rent/SelectPakage.tsx') },
  { path: '/cdbUsage', access: 'private', title: 'routes.cdbUsage', screen: () => import('./rent/CdbUsage.tsx') },
  { path: '/order', aliases: ['/pastOrder'], access: 'private', title: 'routes.order', screen: () => import('./orders/Order.tsx') },
  { path: '/orderDetail', access: 'private', title: 'routes.orderDetail', screen: () => import('./orders/OrderDetail.tsx') },
  { path: '/wallet', access: 'private', title: 'routes.wallet', screen: () => import('./wallet/Wallet.tsx') },
  { path: '/wallet_in', access: 'private', title: 'routes.walletIn', screen: () => import('./wallet/WalletIn.tsx') },
  { path: '/wallet_out', access: 'private', title: 'routes.walletOut', screen: () => import('./wallet/WalletOut.tsx') },
  { path: '/wallet_list', access: 'private', title: 'routes.walletList', screen: () => import('./wallet/WalletList.tsx') },
  { path: '/google_map', aliases: ['/map'], access: 'private', title: 'routes.map', screen: () => import('./map/GoogleMap.tsx') },
  { path: '/nearby_shop', access: 'private', title: 'routes.nearbyShop', screen: () => import('./map/NearbyShop.tsx') },
  { path: '/mine', access: 'private', title: 'routes.mine', screen: () => import('./info/Mine.tsx') },
  { path: '/setting', access: 'private', title: 'routes.setting', screen: () => import('./info/Setting.tsx') },
  { path: '/shop', access: 'private', title: 'routes.shop', screen: () => import('./info/Shop.tsx') },
  { path: '/help', access: 'private', title: 'routes.help', screen: () => import('./info/Help.tsx') },
  { path: '/usage', access: 'private', title: 'routes.usage', screen: () => import('./info/Usage.tsx') },
  { path: '/wifiMall', access: 'private' },
  { path: '/packageOrder', access: 'private' },
  { path: '/scanOrder', access: 'private' },
  { path: '/scanPickUpOrder', access: 'private' },
  { path: '/pickUp', access: 'private' },
  { path: '/packageDetail', access: 'private' },
  { path: '/scanQr', access: 'private' },
  { path: '/payment_card', access: 'private' },
];

/** The screen of paths no route matches (and of routes without a screen yet). */
export const notFoundScreen = () => import('./ui/NotFound.tsx');
export const NOT_FOUND_TITLE = 'routes.notFound';

export const { match: matchRoute, routeOf, isPublic, guard } = routeTable(ROUTES);
