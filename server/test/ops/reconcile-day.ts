// A provider's day reconciled from the desk (POST money/reconciliations) as the platform's owner: the provider's
// result when its report was read, or (unreadable) the 503 naming the provider and what stayed stored of the day.
import { expect } from 'vitest';
import type { ReconciliationShape } from '#contract/ops/money.ts';
import type { Built } from '../helper.ts';
import type { OpsConsole } from './console.ts';

export function dayReconciler(provider: string, at: () => { b: Built; owner: OpsConsole; day: string }) {
  const call = (reason: string) => at().owner.call('POST', '/money/reconciliations', { day: at().day, reason });
  return {
    async reconcile(reason: string) {
      const res = await call(reason);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ items: ReconciliationShape[] }>().items.find((i) => i.provider === provider)!;
    },
    /** A day whose report cannot be read: a 503 naming the provider; answers the statuses stored for the day. */
    async unreadable(reason: string) {
      const res = await call(reason);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json<{ message: string }>().message).toMatch(new RegExp(provider, 'i'));
      const { rows } = await at().b.db.query<{ status: string }>(
        'select status from provider_reconciliations where provider = $1 and day = $2',
        [provider, at().day],
      );
      return rows;
    },
  };
}
