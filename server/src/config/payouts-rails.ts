// The bank payout adapters this process runs with (payments/payouts/), from the environment:
//   WISE_API_TOKEN, WISE_PROFILE_ID   Wise pays the bank channels it can (both or neither)
//   WISE_API_BASE                     default https://api.wise.com (sandbox: https://api.sandbox.transferwise.tech)
//   WISE_CHANNELS                     the payouts.json channels Wise pays, comma-separated (default payout-sepa)
// No rail configured: every bank withdrawal waits as "awaiting payout" for an operator (docs/operations.md).
import type { BankPayoutRail } from '../modules/payments/payouts/rail.ts';
import { WiseRail } from '../modules/payments/payouts/wise.ts';

export function payoutRailsFromEnv(env: Record<string, string | undefined>): {
  rails: BankPayoutRail[];
  problems: string[];
} {
  const token = env.WISE_API_TOKEN?.trim();
  const profile = env.WISE_PROFILE_ID?.trim();
  if (!token && !profile) return { rails: [], problems: [] };
  if (!token || !profile || !/^\d+$/.test(profile)) {
    return { rails: [], problems: ['Wise payouts need WISE_API_TOKEN and a numeric WISE_PROFILE_ID'] };
  }
  const channels = env.WISE_CHANNELS?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return {
    rails: [
      new WiseRail({ apiToken: token, profileId: profile, apiBase: env.WISE_API_BASE?.trim() || undefined, channels }),
    ],
    problems: [],
  };
}
