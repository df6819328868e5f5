// The sandbox bank rail (test mode only; never registered with SANDBOX=off): pays every bank withdrawal channel at
// once, and bounces a payout to an account whose number ends in SANDBOX_FAILING_ACCOUNT_SUFFIX, as the sandbox card
// provider's payouts do. It keeps no state: the outcome follows from the withdrawal's own account fields.
import { SANDBOX_FAILING_ACCOUNT_SUFFIX } from '../sandbox.ts';
import type { BankPayoutInput, BankPayoutRail, BankPayoutStatus } from './rail.ts';

export class SandboxBankRail implements BankPayoutRail {
  readonly id = 'sandbox-bank';
  readonly sandbox = true;
  readonly checkEveryMs = 0;

  pays(): boolean {
    return true;
  }

  submit(input: BankPayoutInput): Promise<{ ref: string }> {
    return Promise.resolve({ ref: `sbx_${input.idempotencyKey}` });
  }

  status(_ref: string, input: BankPayoutInput): Promise<BankPayoutStatus> {
    const bounces = Object.values(input.account).some((v) =>
      v.replace(/\s/g, '').endsWith(SANDBOX_FAILING_ACCOUNT_SUFFIX),
    );
    return Promise.resolve(bounces ? { state: 'failed', failureCode: 'account_closed' } : { state: 'paid' });
  }
}
