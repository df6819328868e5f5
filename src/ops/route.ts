// The console's hash routes (#/staff, #/audit, #/account, #/invitation?token=…): one small store of the hash.
import { atom } from 'nanostores';

export interface OpsRoute {
  path: string;
  query: URLSearchParams;
}

function parse(hash: string): OpsRoute {
  const [path = '', q = ''] = hash.replace(/^#/, '').split('?');
  return { path: path || '/', query: new URLSearchParams(q) };
}

export const $route = atom<OpsRoute>(parse(typeof location === 'undefined' ? '' : location.hash));
if (typeof window !== 'undefined') window.addEventListener('hashchange', () => $route.set(parse(location.hash)));

export function go(path: string) {
  location.hash = `#${path}`;
}
