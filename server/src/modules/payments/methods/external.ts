// The customer-action lifecycle every payment method provider shares (its provider's wire operations are the
// method's own: method-base.ts). The rentals, wallet, debt and Wi-Fi flows pay with a method exactly as with a card
// provider whose customer must act (3-D Secure): `authorize` starts the payment at the provider and answers
// `requires_action` with what the customer does next; the app repeats its call with `paymentIntent` = our
// outTradeNo, and `resume` reads the provider's state (after the customer's return with its parameters, or by
// polling while they confirm on their phone). Capture, void and refund take our own reference and go to the
// provider with its current ref; the orphan guards and compensation jobs of the flows therefore work unchanged.
import type {
  AuthorizeInput,
  AuthorizeResult,
  ProviderCallOptions,
  WebhookAction,
  WebhookDelivery,
  WebhookRequest,
} from '../provider.ts';
import { NotSupported } from '../provider.ts';
import {
  ProviderError,
  webhookPath,
  type ExternalState,
  type Notification,
  type StartInput,
  type StatusResult,
} from './adapter.ts';
import { openCard, sealContext } from './card-seal.ts';
import { MethodProviderBase, outTradeNoOf, parseSavedCardRef } from './method-base.ts';
import { appPath } from '../return-url.ts';
import type { ExternalRow, PayerDetails } from './repository.ts';

export {
  EXTERNAL_ACTION_PREFIX,
  PAYER_TOKEN_PREFIX,
  SAVED_CARD_PREFIX,
  savedCardRefOf,
  parseSavedCardRef,
  outTradeNoOf,
  type CustomerStore,
  type MethodHost,
} from './method-base.ts';

/**
 * A method's verified notification as one of the webhook actions: about a payment of ours, or else (a ref we did not
 * start a payment with) about a payout.
 */
export function methodAction(n: Pick<Notification, 'ref' | 'state'>, ours: boolean): WebhookAction {
  if (!ours)
    return n.ref && n.state === 'paid' ? 'payout.paid' : n.ref && n.state === 'failed' ? 'payout.failed' : 'ignored';
  const failed: (ExternalState | undefined)[] = ['failed', 'cancelled'];
  return failed.includes(n.state) ? 'payment.failed' : 'payment.succeeded';
}

export abstract class MethodProvider extends MethodProviderBase {
  async authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const outTradeNo = outTradeNoOf(this.id, input.idempotencyKey);
    // A replayed call (a retried request, an orphan guard) gets the first call's payment back, never a second one.
    const prior = await this.app.repo.find(outTradeNo);
    if (prior) return prior.state === 'pending' ? this.actionOf(prior) : this.resultOf(prior);
    if (input.capture === 'manual' && !this.capabilities.hold) throw new NotSupported(this.id, 'holds');
    const saved = parseSavedCardRef(input.token);
    let payType: string;
    let d: PayerDetails;
    let card: StartInput['card'];
    if (saved) {
      // A saved card (the wallet's, of this user): only on the user's own customer at the provider.
      const mine =
        this.savesCards && input.userId != null ? await this.app.customers!.customer(this.id, input.userId) : undefined;
      const type = this.definition.payTypes.find((t) => t.kind === 'card')?.type;
      if (!mine || mine !== saved.customerRef || !type)
        return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      payType = type;
      d = {};
      card = { saved };
    } else {
      const used =
        input.userId != null ? await this.app.repo.useToken(input.token, input.userId, this.id, this.now) : undefined;
      if (!used) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      payType = used.pay_type;
      d = used.details;
      card = d.card;
    }
    if (d.sealedCard) {
      // Opened only here, for the provider call; the row no longer holds it (useToken removed it).
      const opened = this.app.cardKey
        ? openCard(this.app.cardKey, d.sealedCard, sealContext(input.token, input.userId ?? 0, this.id))
        : undefined;
      if (!opened) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      card = opened;
    }
    const base = this.app.publicUrl.replace(/\/$/, '');
    let started;
    try {
      started = await this.start({
        outTradeNo,
        amount: input.amount,
        currency: input.currency,
        description: `Powerly ${input.purpose ?? ''}`.trim(),
        capture: input.capture,
        returnUrl: `${base}/payments/return/${outTradeNo}`,
        cancelUrl: `${base}/payments/return/${outTradeNo}?cancel=1`,
        notifyUrl: `${base}${webhookPath(this.id)}`,
        idempotencyKey: input.idempotencyKey,
        payType,
        payer: { userId: input.userId ?? 0, email: d.email, phone: d.phone, openId: d.openId, name: d.name, ip: d.ip },
        card,
        deposit: input.capture === 'manual' ? input.amount : undefined,
      });
    } catch (err) {
      if (err instanceof ProviderError && err.code !== 'network' && (err.status ?? 400) < 500) {
        return { ok: false, ref: null, declineCode: err.code, card: null };
      }
      throw err;
    }
    // The app's own card screen (MercadoPago.js) may save the new card: it names the method for the save call.
    if (
      this.savesFromToken &&
      this.cardOnSdkScreen &&
      !saved &&
      started.action.kind === 'form' &&
      started.action.url.startsWith('#/')
    ) {
      started.action = { ...started.action, fields: { ...started.action.fields, paymentId: `${this.id}:${payType}` } };
    }
    const row: ExternalRow = {
      out_trade_no: outTradeNo,
      provider: this.id,
      pay_type: payType,
      provider_ref: started.ref,
      user_id: input.userId ?? 0,
      amount: input.amount,
      currency: input.currency,
      capture: input.capture,
      state: started.state,
      failure_code: started.failureCode ?? null,
      action: started.action,
      app_return_url: appPath(input.returnUrl),
      return_params: null,
      save_card: !saved && d.saveCard === true && this.savesAfterPayment,
    };
    await this.app.repo.insert(row, this.now);
    if (row.state === 'paid' || row.state === 'authorized') await this.keepCard(row);
    return started.state === 'pending' ? this.actionOf(row) : this.resultOf(row);
  }

  /** The payment's state now: the provider is asked unless our row is final. Only its payer may resume it. */
  override async resume(ref: string, userId: number): Promise<AuthorizeResult> {
    const row = await this.app.repo.find(ref);
    if (!row || row.user_id !== userId) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
    const now = await this.refresh(row);
    return now.state === 'pending' ? this.actionOf(now) : this.resultOf(now);
  }

  /** Asks the provider (completing with the customer's return parameters once) and records what it says. */
  async refresh(row: ExternalRow): Promise<ExternalRow> {
    if (row.state !== 'pending') return row;
    const call = { idempotencyKey: `complete_${row.out_trade_no}` };
    let st: StatusResult;
    if (row.return_params?.cancel === '1') {
      // Anyone can post a cancel to the return URL: the provider is asked first, and a payment it took is recorded.
      st = await this.status(row.provider_ref, row.out_trade_no);
      if (st.state === 'pending')
        st = { ref: st.ref || row.provider_ref, state: 'cancelled', failureCode: 'cancelled' };
    } else if (row.return_params && this.complete) {
      // A saved card's payment (the screen made a token of the card the action named) is the user's customer's.
      const customerRef =
        row.action.kind === 'form' && row.action.fields.cardId
          ? await this.app.customers?.customer(this.id, row.user_id)
          : undefined;
      const payment = {
        amount: row.amount,
        currency: row.currency,
        capture: row.capture,
        description: 'Powerly',
        notifyUrl: `${this.app.publicUrl.replace(/\/$/, '')}${webhookPath(this.id)}`,
        ...(customerRef ? { customerRef } : {}),
      };
      st = await this.complete(row.provider_ref, row.out_trade_no, row.return_params, call, payment);
    } else st = await this.status(row.provider_ref, row.out_trade_no);
    return this.record(row, st);
  }

  /**
   * The one-time code the card's issuer sent the customer (a card charge whose action is the app's OTP screen:
   * Flutterwave's validate-charge flow), passed to the provider; then the payment's state as for any resume. Only
   * its payer, only while it waits for the code. A replay once the payment is settled sends nothing and answers its
   * state; a wrong code throws the adapter's ProviderError (`incorrect_otp`) and the payment stays pending.
   */
  async submitOtp(outTradeNo: string, userId: number, otp: string): Promise<ExternalRow | undefined> {
    const row = await this.app.repo.find(outTradeNo);
    if (!row || row.provider !== this.id || row.user_id !== userId) return undefined;
    if (
      row.action.kind !== 'form' ||
      row.action.fields.outTradeNo !== outTradeNo ||
      !row.action.url.endsWith('Otp') ||
      !this.complete
    )
      return undefined;
    if (row.state !== 'pending') return row;
    const st = await this.complete(
      row.provider_ref,
      row.out_trade_no,
      { otp },
      { idempotencyKey: `otp_${outTradeNo}` },
    );
    return this.record(row, st);
  }

  async capture(ref: string, amount: number, opts?: ProviderCallOptions) {
    const row = await this.current(ref);
    if (!this.capturePayment) throw new NotSupported(this.id, 'capture');
    await this.capturePayment(row.provider_ref, amount, { idempotencyKey: opts?.idempotencyKey ?? `capture_${ref}` });
    await this.app.repo.update(ref, { state: 'paid', ref: row.provider_ref }, this.now);
  }

  /**
   * Releases a payment: an authorisation is voided; one still waiting for the customer is asked once more (a
   * payment they finished meanwhile is refunded) and otherwise closed on our side.
   */
  async void(ref: string, opts?: ProviderCallOptions) {
    const row = await this.refresh(await this.current(ref));
    const key = opts?.idempotencyKey ?? `void_${ref}`;
    if (row.state === 'authorized') {
      if (!this.voidPayment) throw new NotSupported(this.id, 'void');
      await this.voidPayment(row.provider_ref, { idempotencyKey: key });
    } else if (row.state === 'paid') await this.refundPayment(row.provider_ref, row.amount, { idempotencyKey: key });
    else if (row.state !== 'pending') return;
    const closed = await this.app.repo.update(
      ref,
      { state: 'cancelled', ref: row.provider_ref, failureCode: 'released' },
      this.now,
    );
    // Read pending, but not closed: a concurrent read (the customer's resume, a notification) recorded their payment
    // in between. Released as such (refunded, or voided), else it would be neither taken nor given back.
    if (!closed && row.state === 'pending') await this.void(ref, opts);
  }

  /**
   * A notification about a payment we released while it still waited for the customer (the flow's deadline
   * passed, or the rental could not start): if the customer paid it after all, the money goes back: a charge is
   * refunded, a hold voided, each once (the provider's idempotency key; the row then says so).
   */
  async settleLate(row: ExternalRow) {
    if (row.state !== 'cancelled' || row.failure_code !== 'released') return row;
    const st = await this.status(row.provider_ref, row.out_trade_no);
    if (st.state === 'paid')
      await this.refundPayment(st.ref, st.amount ?? row.amount, { idempotencyKey: `late_${row.out_trade_no}` });
    else if (st.state === 'authorized' && this.voidPayment)
      await this.voidPayment(st.ref, { idempotencyKey: `late_${row.out_trade_no}` });
    else return row;
    await this.app.repo.givenBack(
      row.out_trade_no,
      st.ref,
      st.state === 'paid' ? 'released_refunded' : 'released_voided',
      this.now,
    );
    return (await this.app.repo.find(row.out_trade_no))!;
  }

  async refund(ref: string, amount: number, opts?: ProviderCallOptions) {
    const row = await this.current(ref);
    await this.refundPayment(row.provider_ref, amount, {
      idempotencyKey: opts?.idempotencyKey ?? `refund_${ref}_${amount}`,
    });
  }

  /**
   * A provider's notification (readNotification verifies it) as one of the webhook actions. About a payment of ours,
   * the payment is read again from the provider first (a notification tells that something happened; the state we
   * record is the provider's answer to our own call), and one we had released but the customer paid anyway is given
   * back (settleLate). Asked before the entry stores the event: if this fails, the redelivery asks again. A ref we
   * did not start a payment with (PayPal payout item, M-Pesa B2C result, Flutterwave transfer) is about a payout.
   */
  async notification(req: WebhookRequest): Promise<WebhookDelivery | null> {
    const n = await this.readNotification(req);
    if (!n) return null;
    const { repo } = this.app;
    const row = n.outTradeNo
      ? await repo.find(n.outTradeNo)
      : n.ref
        ? await repo.byProviderRef(this.id, n.ref)
        : undefined;
    const action = methodAction(n, row != null);
    if (row && action !== 'ignored') await this.settleLate(await this.refresh(row));
    return {
      action,
      event: { id: n.eventId, type: n.state ?? 'notification', data: { ref: n.ref ?? '' } },
      applied: row != null,
      ack: n.ack,
    };
  }
}
