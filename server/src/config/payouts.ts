// The operator's payout configuration per currency: which withdrawal channels exist, the fields each asks for,
// and whether a manual bank transfer is offered. Data, not code: server/src/config/payouts.json by default, or
// the JSON file named by PAYOUTS_CONFIG. A currency missing from it has no withdrawal support.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { PayoutChannel, PayoutField } from '#contract/wallet.ts';

export type { PayoutChannel, PayoutField };
export interface CurrencyPayout {
  channels: PayoutChannel[];
  /** Manual bank transfer offered; `remark` says whether it needs the payee's name, bank card and phone. */
  manual: { remark: boolean } | null;
}
export type PayoutConfig = Record<string, CurrencyPayout>;

const DEFAULT_FILE = fileURLToPath(new URL('./payouts.json', import.meta.url));

/** Reads and checks a payout configuration file (throws with the file name on a malformed one). */
export function loadPayouts(file = process.env.PAYOUTS_CONFIG || DEFAULT_FILE): PayoutConfig {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const bad = (why: string) => new Error(`payout configuration ${file}: ${why}`);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('expected an object keyed by currency');
  for (const [currency, c] of Object.entries(raw as Record<string, Partial<CurrencyPayout>>)) {
    if (!/^[A-Z]{3}$/.test(currency)) throw bad(`"${currency}" is not an ISO currency code`);
    if (!Array.isArray(c.channels)) throw bad(`${currency}.channels must be a list`);
    for (const ch of c.channels) {
      if (typeof ch.paymentId !== 'string' || typeof ch.channelName !== 'string' || !Array.isArray(ch.payoutConfig)) {
        throw bad(`${currency}: a channel needs channelName, paymentId and payoutConfig`);
      }
      for (const f of ch.payoutConfig) {
        if (
          typeof f.fieldName !== 'string' ||
          (f.fieldType !== 'input' && f.fieldType !== 'picker') ||
          !Array.isArray(f.fieldDefauldValues)
        ) {
          throw bad(`${currency}/${ch.paymentId}: bad field ${JSON.stringify(f)}`);
        }
      }
    }
    if (c.manual !== null && (typeof c.manual !== 'object' || typeof c.manual.remark !== 'boolean')) {
      throw bad(`${currency}.manual must be null or { "remark": boolean }`);
    }
  }
  return raw as PayoutConfig;
}

/** The configuration this process runs with. */
export const PAYOUTS: PayoutConfig = loadPayouts();
