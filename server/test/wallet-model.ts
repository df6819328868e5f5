// The wallet model's vocabulary (wallet.property.test.ts): the operations it draws, what it sent, and the rent fees
// a user's settled orders kept.
import fc from 'fast-check';
import { toMinor } from '#core/money.ts';
import type { Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';
export const CURRENCIES = ['CNY', 'EUR', 'USD'] as const;
export type Cur = (typeof CURRENCIES)[number];
export const CABINET: Partial<Record<Cur, string>> = { CNY: 'PWL-SH-001', USD: 'PWL-NYC-001' }; // wallet-deposit cabinets

export type Op =
  | { kind: 'topup'; user: number; cur: Cur; amount: number }
  | { kind: 'withdraw'; user: number; cur: Cur; amount: number; bounce: boolean }
  | { kind: 'refund'; user: number; cur: Cur; amount: number }
  | { kind: 'rent'; user: number; cur: 'CNY' | 'USD' }
  | { kind: 'settle'; user: number }
  | { kind: 'replay'; index: number }
  | { kind: 'jobs' };

const user = fc.integer({ min: 0, max: 2 });
const cur = fc.constantFrom(...CURRENCIES);
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('topup' as const), user, cur, amount: fc.integer({ min: 1, max: 300 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('withdraw' as const),
      user,
      cur,
      amount: fc.integer({ min: 1, max: 120 }),
      bounce: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('refund' as const), user, cur, amount: fc.integer({ min: 1, max: 60 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('rent' as const),
      user,
      cur: fc.constantFrom('CNY' as const, 'USD' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), user }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replay' as const), index: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'jobs' as const }) },
);

export interface Sent {
  url: string;
  method: 'GET' | 'POST';
  body?: Record<string, string>;
  key: string;
  token: string;
  /** The first answer (null while lost). */
  answer: { status: number; json: { code: number; data: Record<string, unknown> | null } } | null;
  op: Op;
}

/** The rent fees the user's settled orders in `currency` kept (from the order list). */
export async function userFees(b: Built, token: string, currency: string) {
  const res = await b.app.inject({
    method: 'GET',
    url: `${API}/cdb/mine/order/list?page=1&pageSize=100`,
    headers: { token },
  });
  const records = res.json().data.page.records as { pCurrency: string; pJiesuan: number; pJiesuanid: number }[];
  return records
    .filter((o) => o.pCurrency === currency && o.pJiesuanid === 1)
    .reduce((s, o) => s + toMinor(o.pJiesuan, currency), 0);
}
