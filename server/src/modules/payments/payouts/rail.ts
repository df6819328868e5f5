// Bank payout adapters ("rails"): what pays a bank withdrawal (SEPA, ACH, a manual bank transfer) for real. A rail
// names the withdrawal channels it pays; a bank withdrawal no rail pays waits as "awaiting payout" until an
// operator records the bank's reference (wallet/bank-payouts.ts). With SANDBOX=off only real rails are registered.

export interface BankPayoutInput {
  /** Our withdrawal id (TX…): the payee's bank statement reference. */
  withdrawalId: string;
  /** Integer minor units of `currency`. */
  amount: number;
  currency: string;
  /** The withdrawal channel (payouts.json paymentId, or `manual`). */
  channel: string;
  /** The payee's account fields the channel asked for. */
  account: Record<string, string>;
  /** Stable per withdrawal: a repeated submit (a retried job, a restarted process) never pays twice. */
  idempotencyKey: string;
}

/** Where a payout is: still moving, paid out to the payee's bank, or failed (the money comes back to us). */
export type BankPayoutState = 'processing' | 'paid' | 'failed';

export interface BankPayoutStatus {
  state: BankPayoutState;
  /** Why it failed (the provider's code). */
  failureCode?: string;
}

/**
 * Why a submit stopped. `invalid_account`: the provider refuses the payee's account for good (the withdrawal is
 * rejected, the money goes back to the wallet). `needs_operator`: the payout exists at the provider but cannot go
 * on by itself (our balance there is short): it waits for an operator. Any other error is transient (retried).
 */
export class BankPayoutError extends Error {
  constructor(
    readonly kind: 'invalid_account' | 'needs_operator',
    readonly code: string,
    message: string,
    readonly ref?: string,
  ) {
    super(message);
  }
}

export interface BankPayoutRail {
  /** Short id stored with the withdrawal (`wise`, `sandbox-bank`). */
  readonly id: string;
  /** A sandbox rail (test mode): never registered with SANDBOX=off. */
  readonly sandbox: boolean;
  /** The withdrawal channels and currencies it pays. */
  pays(channel: string, currency: string): boolean;
  /** How long to wait between two status checks of a payout in flight. */
  readonly checkEveryMs: number;
  /** Creates and funds the payout (idempotent by `idempotencyKey`); answers the provider's reference. */
  submit(input: BankPayoutInput): Promise<{ ref: string }>;
  /** The payout's state at the provider now. */
  status(ref: string, input: BankPayoutInput): Promise<BankPayoutStatus>;
}
