// The one route table of the app: path, access, aliases and the optional trailing segment, the
// document title's i18n key (the screen's own heading where it has one), and the screen's lazy loader. The router's matching, the guard, the screen the
// shell renders and the document title all read it. The pure rules over it are in src/core/routes.ts (route
// mechanics, guard) and src/core/navigation.ts (the navigation rules).
//
// Every route of the app is listed, with its access, and every one has its screen (a route without `screen` would
// show the not-found screen). Loaders stay `() => import(...)` so no screen joins the first load.
import type { ComponentType } from 'react';
import { guardRoute, matchRoute as match, type GuardResult, type GuardSession, type RouteMeta } from './core/routes.ts';

export interface RouteDef extends RouteMeta {
  /** The screen's chunk; none yet → the not-found screen. */
  screen?: () => Promise<{ default: ComponentType }>;
}

/**
 * A Wi-Fi route: private, titled routes.<name>, its screen the export of the flow's one chunk (src/mifi/screens.ts)
 * named after the path ('/wifiMall' → wifiMall). One loader and one dependency list for the six routes keeps the
 * route table, which every first load carries (the embed's too), within its budget.
 */
function wifiRoute(path: `/${string}`): RouteDef {
  const name = path.slice(1) as keyof typeof import('./mifi/screens.ts');
  return {
    path,
    access: 'private',
    title: `routes.${name}`,
    screen: () => import('./mifi/screens.ts').then((m) => ({ default: m[name] })),
  };
}

export const ROUTES: readonly RouteDef[] = [
  // ---- Public (ignoreAuth) ----
  { path: '/', access: 'public', title: 'routes.homeScan', screen: () => import('./scan/HomeScan.tsx') },
  { path: '/home', access: 'public', title: 'home.title', screen: () => import('./rent/Home.tsx') },
  { path: '/homeMap', access: 'public', title: 'map.title', screen: () => import('./map/HomeMap.tsx') },
  { path: '/login', access: 'public', title: 'login.title', screen: () => import('./auth/Login.tsx') },
  { path: '/otherLogin', access: 'public', title: 'login.title', screen: () => import('./auth/OtherLogin.tsx') },
  { path: '/login_wechat', access: 'public', title: 'login.title', screen: () => import('./auth/LoginWechat.tsx') },
  { path: '/login_alipay', access: 'public', title: 'login.title', screen: () => import('./auth/LoginAlipay.tsx') },
  { path: '/aboutUs', access: 'public', title: 'about.title', screen: () => import('./info/AboutUs.tsx') },
  {
    path: '/aboutUsApp',
    param: 'lang',
    access: 'public',
    title: 'about.title',
    screen: () => import('./info/AboutUsApp.tsx'),
  },
  { path: '/contactUs', access: 'public', title: 'contact.title', screen: () => import('./info/ContactUs.tsx') },
  {
    path: '/contactUsApp',
    param: 'lang',
    access: 'public',
    title: 'contact.title',
    screen: () => import('./info/ContactUsApp.tsx'),
  },
  {
    path: '/invoiceOrderDtl',
    access: 'public',
    title: 'invoice.title',
    screen: () => import('./info/InvoiceOrderDtl.tsx'),
  },
  // The token-less order detail: readable with the order's share sign.
  {
    path: '/orderStatus',
    access: 'public',
    title: 'orderStatus.title',
    screen: () => import('./orders/OrderStatus.tsx'),
  },
  { path: '/payMethod', access: 'public', title: 'routes.payMethod', screen: () => import('./pay/PayMethod.tsx') },
  // The live card methods' SDK screens (src/pay/sdk.ts): reached by the paying call's in-app form action.
  {
    path: '/MercadoPago',
    access: 'public',
    title: 'routes.mercadoPago',
    screen: () => import('./pay/MercadoPago.tsx'),
  },
  { path: '/loginborrow', access: 'public', title: 'login.title', screen: () => import('./auth/LoginBorrow.tsx') },
  { path: '/MonriPay', access: 'public', title: 'routes.monriPay', screen: () => import('./pay/MonriPay.tsx') },

  // ---- Login-required ----
  { path: '/confirm', access: 'private', title: 'confirm.title', screen: () => import('./pay/Confirm.tsx') },
  {
    path: '/borrowSuccess',
    access: 'private',
    title: 'routes.borrowSuccess',
    screen: () => import('./rent/BorrowSuccess.tsx'),
  },
  { path: '/result', access: 'private', title: 'check.resultTitle', screen: () => import('./rent/Result.tsx') },
  {
    path: '/selectPakage',
    access: 'private',
    title: 'rentPricing.title',
    screen: () => import('./rent/SelectPakage.tsx'),
  },
  { path: '/cdbUsage', access: 'private', title: 'cdbUsage.title', screen: () => import('./rent/CdbUsage.tsx') },
  {
    path: '/order',
    aliases: ['/pastOrder'],
    access: 'private',
    title: 'orders.title',
    screen: () => import('./orders/Order.tsx'),
  },
  { path: '/orderDetail', access: 'private', title: 'detail.title', screen: () => import('./orders/OrderDetail.tsx') },
  { path: '/wallet', access: 'private', title: 'wallet.title', screen: () => import('./wallet/Wallet.tsx') },
  { path: '/wallet_in', access: 'private', title: 'wallet.topUp', screen: () => import('./wallet/WalletIn.tsx') },
  { path: '/wallet_out', access: 'private', title: 'wallet.withdraw', screen: () => import('./wallet/WalletOut.tsx') },
  {
    path: '/wallet_list',
    access: 'private',
    title: 'wallet.movements',
    screen: () => import('./wallet/WalletList.tsx'),
  },
  {
    path: '/google_map',
    aliases: ['/map'],
    access: 'private',
    title: 'map.nearbyTitle',
    screen: () => import('./map/GoogleMap.tsx'),
  },
  { path: '/nearby_shop', access: 'private', title: 'map.shopTitle', screen: () => import('./map/NearbyShop.tsx') },
  { path: '/mine', access: 'private', title: 'mine.title', screen: () => import('./info/Mine.tsx') },
  { path: '/setting', access: 'private', title: 'setting.title', screen: () => import('./info/Setting.tsx') },
  { path: '/shop', access: 'private', title: 'shop.title', screen: () => import('./info/Shop.tsx') },
  { path: '/help', access: 'private', title: 'help.title', screen: () => import('./info/Help.tsx') },
  { path: '/usage', access: 'private', title: 'usage.title', screen: () => import('./info/Usage.tsx') },
  // The Wi-Fi screens (src/mifi/): one lazy chunk for the flow (wifiRoute below), its strings (locales/mifi/) loaded with it.
  ...(['/wifiMall', '/packageOrder', '/scanOrder', '/scanPickUpOrder', '/pickUp', '/packageDetail'] as const).map(
    wifiRoute,
  ),
  // The camera scan of a cabinet's code (a Wi-Fi box's pickup, or any cabinet): in the Wi-Fi flow's chunk.
  { ...wifiRoute('/scanQr'), title: 'map.scanTitle' },
  {
    path: '/payment_card',
    access: 'private',
    title: 'routes.paymentCard',
    screen: () => import('./pay/PaymentCard.tsx'),
  },
];

/** The screen of paths no route matches (and of routes without a screen yet). */
export const notFoundScreen = () => import('./ui/NotFound.tsx');
export const NOT_FOUND_TITLE = 'notFound.title';

// The route functions over this table (each its own export, so a bundle keeps only those it uses).
export const matchRoute = (path: string) => match(ROUTES, path);
/** The route's own path for a path: '/aboutUsApp/en-US' → '/aboutUsApp', '/map' → '/google_map'; unknown → itself. */
export const routeOf = (path: string): string => matchRoute(path)?.route.path ?? path;
export const isPublic = (path: string): boolean => matchRoute(path)?.route.access === 'public';
export const guard = (path: string, s: GuardSession): GuardResult => guardRoute(matchRoute(path)?.route ?? null, s);
