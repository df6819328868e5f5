// Price texts: "¥2 / 30 min", "¥5 / 1 h", "¥20 / day".
import type { T } from '../i18n/index.ts';
import { money } from './format.ts';

export function unitText(t: T, unitMinutes: number): string {
  if (unitMinutes % 1440 === 0) return t('price.unitDays', { n: unitMinutes / 1440 });
  if (unitMinutes % 60 === 0) return t('price.unitHours', { n: unitMinutes / 60 });
  return t('price.unitMinutes', { n: unitMinutes });
}

export function perUnitText(t: T, currency: string | undefined, price: number, unitMinutes: number): string {
  return `${money(currency, price)} / ${unitText(t, unitMinutes)}`;
}
