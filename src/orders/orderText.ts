// Texts of an order shared by the list and the detail.
import type { Order } from '../api/orders.ts';
import type { T } from '../i18n/index.ts';
import { PRICE_UNIT_MINUTES, type PriceUnit } from '../core/pricing.ts';
import { money } from '../ui/format.ts';
import { formatDuration } from '../core/duration.ts';
import { toMajor, toMinor } from '../core/money.ts';
import { ORDER_STATE } from '../core/orders.ts';
import { $activeLang } from '../i18n/index.ts';
import { perUnitText } from '../ui/price.ts';

/** "¥2 / 30 min · daily cap ¥20" */
export function chargeStandard(
  o: Pick<Order, 'priceUnit' | 'pJifeiDanwei' | 'pCurrency' | 'pJifei' | 'pFengding'>,
  t: T,
): string {
  const unit = (o.priceUnit ?? 0) in PRICE_UNIT_MINUTES ? ((o.priceUnit ?? 0) as PriceUnit) : 0;
  const minutes = (o.pJifeiDanwei ?? 30) * PRICE_UNIT_MINUTES[unit];
  const base = perUnitText(t, o.pCurrency, o.pJifei ?? 0, minutes);
  return o.pFengding ? `${base} · ${t('orders.cap', { amount: money(o.pCurrency, o.pFengding) })}` : base;
}

/** Without the live stream, a screen showing an open rental rechecks it this often (the borrow screen's 3 s). */
export const OPEN_ORDER_POLL_MS = 3000;

/** A settled return: "Returned at {venue}: {fee} charged, {amount} released" (the deposit minus the fee). */
export function returnSummary(
  o: Pick<Order, 'pZujie' | 'pGhtime' | 'pGhShopName' | 'pJiesuan' | 'pYajin' | 'pCurrency' | 'pJiesuanid'>,
  t: T,
): string | null {
  if ((o.pZujie !== ORDER_STATE.returned && o.pZujie !== ORDER_STATE.overtimeReturn) || !o.pGhtime) return null;
  const c = o.pCurrency;
  const fee = toMinor(o.pJiesuan ?? 0, c);
  const released = Math.max(0, toMinor(o.pYajin ?? 0, c) - fee);
  return t('orders.returnedSummary', {
    venue: o.pGhShopName,
    fee: money(c, toMajor(fee, c)),
    amount: money(c, toMajor(released, c)),
  });
}

/** Minutes used as "1 hr 5 min" in the current language, no zero parts (src/core/duration.ts). */
export function duration(mins: number | undefined): string {
  return formatDuration(Math.max(0, Math.round(mins ?? 0)) * 60_000, $activeLang.get());
}

/** A running time in ms with seconds (the token-less detail's live elapsed time), no zero parts. */
export function elapsedText(ms: number): string {
  return formatDuration(ms, $activeLang.get(), { seconds: true });
}
