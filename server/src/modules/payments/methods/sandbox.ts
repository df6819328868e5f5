// The test mode of every method adapter (SANDBOX=on): it takes the real adapter's definition (payment types,
// how the customer pays, capabilities, the provider's test values) and models the provider's side in the
// database, as the provider's test mode would:
//   redirect · form · jsapi  the customer is sent to the sandbox's checkout page (/sandbox-pay/checkout/<ref>),
//                            approves or declines there, and comes back through /payments/return/<outTradeNo>
//                            (in the WeChat or Alipay browser, the app opens this page instead of the bridge)
//   push                     the phone answers after SANDBOX_PUSH_MS by the test numbers: a number the
//                            provider's test mode lists as declined / insufficient funds / no answer behaves so,
//                            any other number approves
//   card                     the card token of the sandbox card provider; its test cards decide. A method that
//                            saves cards (definition.savesCards) saves the token's card as the sandbox card
//                            provider saves one (a payment method of its test card); a payment with it is
//                            decided by that test card, with no screen (live, the provider asks the CVV again)
// Holds are authorised then captured (less releases the rest) or voided; refunds are partial, never above what
// was captured. Notifications are not sent: the app's resume call reads the state.
import { randomToken } from '../../../lib/ids.ts';
import { NotSupported } from '../provider.ts';
import type { Clock } from '../../../lib/clock.ts';
import {
  ProviderError,
  type AdapterDeps,
  type MethodDefinition,
  type StartInput,
  type StatusResult,
  type Action,
  type SaveCardInput,
  type SavedCardRef,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import type { ExternalRepository, SandboxMethodRow } from './repository.ts';

/** The phone of a push payment answers after this long. */
export const SANDBOX_PUSH_MS = 3_000;
/** A phone that never answers: the provider gives up after this long. */
export const SANDBOX_PUSH_TIMEOUT_MS = 60_000;
export const SANDBOX_CHECKOUT_PATH = '/sandbox-pay/checkout/';

export interface SandboxMethodDeps {
  repo: ExternalRepository;
  clock: Clock;
  /** The outcome of a sandbox card token (single-use), undefined when unknown or used. */
  cardOutcome: (token: string) => Promise<string | undefined>;
  /** The sandbox card provider's saved cards: a card token saved (its test card), and a saved card's outcome. */
  sandboxCards?: {
    save(token: string): Promise<{ ref: string; brand: string; last4: string } | { failure: string }>;
    outcome(ref: string): Promise<string | undefined>;
    remove(ref: string): Promise<void>;
  };
}

const digits = (s: string | undefined) => (s ?? '').replace(/\D/g, '');

/** A method's test mode: the real method's definition, the provider's side modelled in our database. */
export class SandboxMethod extends MethodProvider {
  constructor(
    def: MethodDefinition,
    private readonly d: SandboxMethodDeps,
    deps: AdapterDeps,
  ) {
    super(def, deps);
  }

  /** Saves cards only as the sandbox card provider saves them (its saved cards given). */
  override get savesFromToken() {
    return this.d.sandboxCards !== undefined && super.savesFromToken;
  }

  private kindOfType(type: string) {
    return this.definition.payTypes.find((t) => t.type === type)?.kind ?? 'redirect';
  }

  private pushOutcome(phone: string) {
    return (
      this.definition.testValues?.find((v) => v.outcome !== 'succeeds' && digits(v.value) === phone && phone.length > 0)
        ?.outcome ?? 'succeeds'
    );
  }

  private async row(ref: string, lock = false) {
    const r = await this.d.repo.sandboxFind(ref, { lock });
    if (!r) throw new ProviderError('resource_missing', `No such payment: ${ref}`, 404);
    return r;
  }

  async start(input: StartInput) {
    const { d } = this;
    const def = this.definition;
    const kind = this.kindOfType(input.payType);
    if (input.amount <= 0) throw new ProviderError('invalid_amount', 'The amount must be greater than zero.', 400);
    const typeCurrencies = def.payTypes.find((t) => t.type === input.payType)?.currencies;
    if (typeCurrencies && !typeCurrencies.includes(input.currency))
      throw new ProviderError('currency_not_supported', `${input.currency} is not supported.`, 400);
    if (def.currencies && !def.currencies.includes(input.currency))
      throw new ProviderError('currency_not_supported', `${input.currency} is not supported.`, 400);
    const prior = await d.repo.sandboxByOut(input.outTradeNo);
    const now = d.clock.now();
    const ref = prior?.ref ?? `sbx_${randomToken(12)}`;
    let state: SandboxMethodRow['state'] = 'pending';
    let failure: string | null = null;
    let decideAt: Date | null = null;
    const phone = digits(input.payer.phone);
    if (!prior) {
      if (kind === 'push') {
        if (!phone) throw new ProviderError('phone_required', 'A phone number is required.', 400);
        decideAt = new Date(now.getTime() + SANDBOX_PUSH_MS);
      }
      if (kind === 'card') {
        const saved = input.card?.saved;
        const outcome = saved
          ? await d.sandboxCards?.outcome(saved.cardRef)
          : input.card?.token
            ? await d.cardOutcome(input.card.token)
            : undefined;
        if (!outcome) throw new ProviderError('token_invalid', 'The card token is unknown or was used.', 400);
        if (outcome === 'ok') state = input.capture === 'manual' ? 'authorized' : 'paid';
        else [state, failure] = ['failed', outcome];
      }
      await d.repo.sandboxInsert({
        ref,
        pay_type: input.payType,
        out_trade_no: input.outTradeNo,
        amount: input.amount,
        currency: input.currency,
        capture: input.capture,
        phone: phone || null,
        state,
        failure_code: failure,
        created_at: now,
        decide_at: decideAt,
      });
      if (state === 'paid') await d.repo.sandboxSet(ref, { captured: input.amount });
    }
    const r = await this.row(ref);
    const checkout = `${SANDBOX_CHECKOUT_PATH}${ref}`;
    const action: Action =
      r.state !== 'pending'
        ? { kind: 'none' }
        : kind === 'push'
          ? { kind: 'push' }
          : kind === 'form'
            ? { kind: 'form', url: checkout, fields: { PAY_REQUEST_ID: ref } }
            : kind === 'jsapi'
              ? {
                  kind: 'jsapi',
                  bridge: input.payType === 'ALIPAY' ? 'alipay' : 'wechat',
                  params: { sandboxCheckout: checkout },
                }
              : { kind: 'redirect', url: checkout };
    return { ref, state: r.state, action, ...(r.failure_code ? { failureCode: r.failure_code } : {}) };
  }

  async status(ref: string): Promise<StatusResult> {
    const r = await this.row(ref);
    const now = this.d.clock.now();
    if (r.state === 'pending' && r.decide_at && now >= r.decide_at) {
      const outcome = this.pushOutcome(r.phone ?? '');
      const late = now.getTime() - r.created_at.getTime() >= SANDBOX_PUSH_TIMEOUT_MS;
      if (outcome === 'succeeds') await this.decide(r, true);
      else if (outcome !== 'no_answer') await this.decide(r, false, outcome);
      else if (late) await this.decide(r, false, 'no_answer');
      return statusOf(await this.row(ref));
    }
    return statusOf(r);
  }

  override async capturePayment(ref: string, amount: number) {
    const r = await this.row(ref, true);
    if (r.state === 'paid' && r.captured === amount) return; // a replayed capture
    if (r.state !== 'authorized') throw new ProviderError('invalid_state', `Payment ${ref} is ${r.state}.`, 409);
    if (amount <= 0 || amount > r.amount)
      throw new ProviderError('amount_too_large', 'Capture above the authorised amount.', 400);
    await this.d.repo.sandboxSet(ref, { state: 'paid', captured: amount });
  }

  override async voidPayment(ref: string) {
    const r = await this.row(ref, true);
    if (r.state === 'cancelled') return;
    if (r.state !== 'authorized' && r.state !== 'pending')
      throw new ProviderError('invalid_state', `Payment ${ref} is ${r.state}.`, 409);
    await this.d.repo.sandboxSet(ref, { state: 'cancelled', failureCode: 'voided' });
  }

  async refundPayment(ref: string, amount: number) {
    const r = await this.row(ref, true);
    if (r.state !== 'paid') throw new ProviderError('invalid_state', `Payment ${ref} is ${r.state}.`, 409);
    if (amount <= 0 || r.refunded + amount > r.captured)
      throw new ProviderError('amount_too_large', 'Refund above what was captured.', 400);
    await this.d.repo.sandboxSet(ref, { refunded: r.refunded + amount });
  }

  override payout(): Promise<{ ref: string }> {
    if (!this.capabilities.payout) return Promise.reject(new NotSupported(this.id, 'payouts'));
    return Promise.resolve({ ref: `sbx_po_${randomToken(12)}` });
  }

  override async saveCardToken(input: SaveCardInput) {
    if (!this.d.sandboxCards) throw new NotSupported(this.id, 'cardSaving');
    const r = await this.d.sandboxCards.save(input.token);
    if ('failure' in r)
      throw new ProviderError(
        r.failure,
        r.failure === 'token_invalid' ? 'The card token is unknown or was used.' : 'Your card was declined.',
        400,
      );
    return {
      customerRef: input.customerRef ?? `sbxcus_${randomToken(12)}`,
      cardRef: r.ref,
      brand: r.brand,
      last4: r.last4,
    };
  }

  override async removeCard(saved: SavedCardRef) {
    if (!this.d.sandboxCards || this.definition.savesCards !== true) throw new NotSupported(this.id, 'cardSaving');
    await this.d.sandboxCards.remove(saved.cardRef);
  }

  /** Notifications are not sent: the app's resume call reads the state. */
  readNotification() {
    return Promise.resolve(null);
  }

  override clientConfig() {
    return { sandbox: '1' };
  }

  private async decide(r: SandboxMethodRow, approve: boolean, failure = 'declined') {
    const { repo } = this.d;
    if (approve)
      await repo.sandboxSet(r.ref, {
        state: r.capture === 'manual' ? 'authorized' : 'paid',
        captured: r.capture === 'manual' ? 0 : r.amount,
      });
    else await repo.sandboxSet(r.ref, { state: 'failed', failureCode: failure });
  }
}

const statusOf = (r: SandboxMethodRow): StatusResult => ({
  ref: r.ref,
  state: r.state,
  amount: r.amount,
  currency: r.currency,
  ...(r.failure_code ? { failureCode: r.failure_code } : {}),
});

/** The customer's answer on the sandbox's checkout page. */
export async function sandboxDecide(repo: ExternalRepository, ref: string, approve: boolean) {
  const r = await repo.sandboxFind(ref, { lock: true });
  if (!r) return undefined;
  if (r.state === 'pending') {
    if (approve)
      await repo.sandboxSet(ref, {
        state: r.capture === 'manual' ? 'authorized' : 'paid',
        captured: r.capture === 'manual' ? 0 : r.amount,
      });
    else await repo.sandboxSet(ref, { state: 'cancelled', failureCode: 'cancelled' });
  }
  return r;
}
