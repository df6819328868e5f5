// The routes this build has screens for (later slices add theirs).
export const IMPLEMENTED_ROUTES = ['/', '/home', '/confirm', '/borrowSuccess', '/result', '/order', '/pastOrder', '/orderDetail',
  '/mine', '/aboutUs', '/contactUs', '/help', '/setting', '/shop', '/usage', '/invoiceOrderDtl',
  '/login', '/otherLogin', '/login_wechat', '/login_alipay',
  '/wallet', '/wallet_in', '/wallet_out', '/wallet_list'] as const;

/** The map slice (issue 7). */
const MAP_ROUTES = ['/homeMap', '/google_map', '/map', '/nearby_shop'];

export function isImplemented(path: string): boolean {
  return (IMPLEMENTED_ROUTES as readonly string[]).includes(path) || MAP_ROUTES.includes(path);
}
