// A code link the server answered with its package screen rendered (server/src/codeLinkPage.ts): the page
// carries the scan it shows as a JSON data block. main.tsx loads this module (apart from the first load) when the
// block is there; it adopts that scan without scanning again (the cabinet and the scan code stored, the route
// the package screen, the page's language on a first visit) and makes the rider's session before main.tsx
// hydrates the markup. A rider who was signed in already then gets what only their own scan knows (wallet, open
// rentals); a new tourist has neither. ICU's number data loads in a worker meanwhile (platform/intlWarm.ts).
import { SERVED_SCAN_ID } from '../core/firstScreen.ts';
import { queryCode } from '../core/codeLink.ts';
import { isLocale } from '../core/lang.ts';
import { asksAboutOpenOrders } from '../core/scanRoute.ts';
import { checkCabinet, type Cabinet } from '../api/cabinet.ts';
import { translate } from '../i18n/index.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $lang } from '../stores/locale.ts';
import { storeScanCodes } from '../stores/scan.ts';
import { $token } from '../stores/session.ts';
import { $route, navigate } from '../stores/router.ts';
import { confirmDialog } from '../ui/feedback.tsx';
import { ensureToken } from './touristSession.ts';
import { warmIntl } from '../platform/intlWarm.ts';

/**
 * Adopts the served scan when the route is its code link and makes the session: then a follow-up to run once the
 * screen is hydrated. Null when the page's scan is not this route's or no session could be made (WeChat signs
 * in instead; a failed tourist login is retried by the code-link entry the guard then sends the rider to).
 */
export async function adoptServed(pageLang: string): Promise<(() => void) | null> {
  // Meanwhile a worker loads ICU's number data, which the screen's prices would otherwise load in the hydration.
  const warm = warmIntl(pageLang);
  const block = document.getElementById(SERVED_SCAN_ID);
  block?.remove();
  const { path, query } = $route.get();
  const code = path === '/' ? queryCode(query) : null;
  let cabinet: Cabinet;
  try {
    cabinet = JSON.parse(block?.textContent || '') as Cabinet;
  } catch {
    return null;
  }
  if (code?.key !== 'qrcode' || cabinet.qrcode !== code.code) return null;
  // A first visit takes the page's language (the rider's, by the link or the browser); a chosen one stays.
  if (isLocale(pageLang) && !isLocale(storedLang())) $lang.set(pageLang);
  $cabinet.set(cabinet);
  storeScanCodes({ qrcode: code.code, zhcode: '' });
  navigate('/selectPakage', { replace: true });
  const had = Boolean($token.get());
  try {
    await ensureToken();
  } catch {
    return null;
  }
  await warm;
  return had ? () => riderScan(code.code) : () => {};
}

function storedLang(): string | null {
  try {
    return localStorage.getItem('lang');
  } catch {
    return null;
  }
}

/** The rider's own scan: their wallet and open rentals; with open rentals, the question the code-link entry asks. */
function riderScan(code: string): void {
  checkCabinet(code)
    .then(async (cabinet) => {
      $cabinet.set(cabinet);
      if (!asksAboutOpenOrders(cabinet)) return;
      const view = await confirmDialog({
        title: translate('scan.openOrdersTitle'),
        text: translate('scan.openOrders', { n: cabinet.zujieNum ?? 0 }),
        okLabel: translate('scan.viewOrders'),
        cancelLabel: translate('scan.later'),
        role: 'dialog',
      });
      if (view) navigate('/order');
    })
    // The public scan stays on screen; the cabinet home scans for the rider again when it opens.
    .catch(() => {});
}
