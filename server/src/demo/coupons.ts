// The demo's two coupons (couponNo on payType FK): 20 % off anywhere, and € 2 off a payment in euros. Made through
// the coupons service, once (a code that exists already is left as it is).
import type { CouponCreate } from '#contract/ops/coupons.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { CouponsService } from '../modules/coupons/service.ts';

const YEAR_MS = 365 * 24 * 3600_000;

export async function seedCoupons(coupons: CouponsService, clock: Clock): Promise<void> {
  const from = new Date(clock.now().getTime() - 24 * 3600_000).toISOString();
  const to = new Date(clock.now().getTime() + YEAR_MS).toISOString();
  const demo: CouponCreate[] = [
    {
      code: 'WELCOME20',
      kind: 'percent',
      percent: 20,
      validFrom: from,
      validTo: to,
      limitPerUser: 1,
      reason: 'demo seed',
    },
    {
      code: 'EURO2',
      kind: 'fixed',
      amount: 200,
      currency: 'EUR',
      validFrom: from,
      validTo: to,
      limitPerUser: 3,
      limitTotal: 1000,
      reason: 'demo seed',
    },
  ];
  for (const c of demo) {
    await coupons.create({ kind: 'all' }, null, c).catch((err: unknown) => {
      if (!(err instanceof AppError && err.code === 409)) throw err;
    });
  }
}
