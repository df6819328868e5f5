// The support desk's settings: how much of a rental's fee a support person may refund on their own (finance may
// refund any amount up to what was charged). DESK_SUPPORT_REFUND_LIMIT="EUR=1000,USD=1000,CNY=8000": minor units
// per currency; a currency not listed has the default, 10 in its major unit (€10, ¥10, 10 KWD).
import { toMinor } from '#core/money.ts';

export interface DeskSettings {
  /** Minor units per currency (ISO code). */
  supportRefundLimit?: Record<string, number>;
}

export function deskSettingsFromEnv(env: NodeJS.ProcessEnv): DeskSettings {
  const raw = env.DESK_SUPPORT_REFUND_LIMIT?.trim();
  if (!raw) return {};
  const limits: Record<string, number> = {};
  for (const part of raw.split(',')) {
    const m = /^\s*([A-Z]{3})\s*=\s*(\d{1,12})\s*$/.exec(part);
    if (!m) throw new Error(`DESK_SUPPORT_REFUND_LIMIT: "${part}" is not CUR=minor units (e.g. EUR=1000)`);
    limits[m[1]!] = Number(m[2]);
  }
  return { supportRefundLimit: limits };
}

/** The most a support person may refund of one rental in `currency` (minor units). */
export function supportRefundLimit(s: DeskSettings, currency: string): number {
  return s.supportRefundLimit?.[currency] ?? toMinor(10, currency);
}
