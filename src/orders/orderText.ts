// Texts of an order shared by the list and the detail.
import type { Order } from '../api/orders.ts';
import type { T } from '../i18n/index.ts';
import { PRICE_UNIT_MINUTES, type PriceUnit } from '../core/pricing.ts';
import { money } from '../ui/format.ts';
import { perUnitText } from '../ui/price.ts';

/** "¥2 / 30 min · daily cap ¥20" */
export function chargeStandard(o: Pick<Order, 'priceUnit' | 'pJifeiDanwei' | 'pCurrencyName' | 'pJifei' | 'pFengding'>, t: T): string {
  const unit = (o.priceUnit ?? 0) in PRICE_UNIT_MINUTES ? ((o.priceUnit ?? 0) as PriceUnit) : 0;
  const minutes = (o.pJifeiDanwei ?? 30) * PRICE_UNIT_MINUTES[unit];
  const base = perUnitText(t, o.pCurrencyName, o.pJifei ?? 0, minutes);
  return o.pFengding ? `${base} · ${t('orders.cap', { amount: money(o.pCurrencyName, o.pFengding) })}` : base;
}

export function duration(mins: number | undefined, t: T): string {
  const m = Math.max(0, Math.round(mins ?? 0));
  const h = Math.floor(m / 60);
  return h > 0 ? t('orders.durationHm', { h, m: m % 60 }) : t('orders.durationM', { m });
}

/** A running time in ms as "1 h 05 min 09 s" style text (the token-less detail's live elapsed time). */
export function elapsedText(ms: number, t: T): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? t('orderStatus.hms', { h, m, s: sec }) : t('orderStatus.ms', { m, s: sec });
}
