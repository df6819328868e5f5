// Which step of a top-up (CZ) failed, named as the product names it: the server refused the recharge order (a
// business answer other than a decline) — "Failed to create recharge order" — else the payment could not be made —
// "Failed to initiate recharge payment". The confirm screen's and the top-up screen's failures both say it.
import { ApiError } from '../api/client.ts';

export function rechargeFailureKey(e: unknown): 'payTypes.rechargeOrderFailed' | 'payTypes.rechargePayFailed' {
  return e instanceof ApiError && e.kind === 'business' && e.status !== 422
    ? 'payTypes.rechargeOrderFailed'
    : 'payTypes.rechargePayFailed';
}
