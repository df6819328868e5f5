// The routes this build has screens for (later slices add theirs).
export const IMPLEMENTED_ROUTES = ['/', '/home', '/confirm', '/borrowSuccess', '/result', '/order', '/pastOrder', '/orderDetail',
  '/wallet', '/wallet_in', '/wallet_out', '/wallet_list'] as const;

export function isImplemented(path: string): boolean {
  return (IMPLEMENTED_ROUTES as readonly string[]).includes(path);
}
