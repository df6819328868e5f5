// The Flutterwave test server's charges: card (PIN / OTP / 3-D Secure redirect), tokenized and mobile money; see
// ../flutterwave.ts.
import { FlutterwaveCore } from './core.ts';
import { ApiError, cardOf, MOBILE, PROCESSOR, TEST_CARDS, TEST_PIN, type FlwTx } from './model.ts';

export abstract class FlutterwaveCharges extends FlutterwaveCore {
  protected newTx(p: Record<string, unknown>, payment_type: string, preauth: boolean): FlwTx {
    const txRef = String(p.tx_ref ?? '');
    if (!txRef) throw new ApiError(400, 'tx_ref is required');
    if (this.byTxRef(txRef)) throw new ApiError(400, 'Duplicate transaction reference: tx_ref has already been used');
    const amount = Number(p.amount);
    if (!(amount > 0)) throw new ApiError(400, 'amount must be greater than 0');
    const currency = String(p.currency ?? '');
    if (!/^[A-Z]{3}$/.test(currency)) throw new ApiError(400, 'currency is invalid');
    const decimals =
      new Intl.NumberFormat(undefined, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    if (Number(amount.toFixed(decimals)) !== amount)
      throw new ApiError(400, `amount has more than ${decimals} decimal places for ${currency}`);
    if (!p.email) throw new ApiError(400, 'email is required');
    const id = ++this.seq;
    const tx: FlwTx = {
      id,
      tx_ref: txRef,
      flw_ref: `FLW-MOCK-${preauth ? 'PREAUTH-' : ''}${id.toString(16)}${Math.random().toString(16).slice(2, 10)}`,
      amount,
      charged_amount: amount,
      currency,
      status: 'pending',
      payment_type,
      charge_type: preauth ? 'preauth' : 'normal',
      processor_response: 'Pending',
      auth_model: 'NOAUTH',
      meta: (p.meta as Record<string, unknown>) ?? null,
      customer: { email: String(p.email), phone_number: (p.phone_number as string) ?? null },
      created_at: this.now().toISOString(),
      held: 0,
      refunded: 0,
      awaiting: 'none',
    };
    this.txs.set(id, tx);
    return tx;
  }

  protected cardCharge(p: Record<string, unknown>): Record<string, unknown> {
    const number = String(p.card_number ?? '');
    const card = TEST_CARDS[number] ?? this.extraCards[number];
    if (!card) throw new ApiError(400, 'Card number is invalid');
    if (String(p.cvv) !== card.cvv) throw new ApiError(400, 'Invalid CVV');
    if (!/^\d{2}$/.test(String(p.expiry_month)) || !/^\d{2}$/.test(String(p.expiry_year)))
      throw new ApiError(400, 'Invalid card expiry');
    const authz = p.authorization as { mode?: string; pin?: string; city?: string } | undefined;
    // PIN and AVS cards: the first call only says which fields are needed (no transaction yet).
    if (card.auth === 'pin' && authz?.mode !== 'pin')
      return {
        message: 'Charge authorization data required',
        meta: { authorization: { mode: 'pin', fields: ['pin'] } },
      };
    if (card.auth === 'avs_noauth' && authz?.mode !== 'avs_noauth') {
      return {
        message: 'Charge authorization data required',
        meta: { authorization: { mode: 'avs_noauth', fields: ['city', 'address', 'state', 'country', 'zipcode'] } },
      };
    }
    if (card.auth === 'pin' && authz?.pin !== TEST_PIN) throw new ApiError(400, 'Incorrect PIN');
    const tx = this.newTx(p, 'card', p.preauthorize === true);
    tx.meta = { ...(tx.meta ?? {}), __card: number };
    tx.card = cardOf(number, card, String(p.expiry_month), String(p.expiry_year));
    if (tx.charge_type === 'preauth') tx.held = tx.amount;
    if (card.auth === 'pin' || card.auth === 'avs_noauth' || card.auth === 'otp') {
      Object.assign(tx, {
        auth_model: card.auth === 'pin' ? 'PIN' : 'AVS_NOAUTH',
        awaiting: 'otp',
        processor_response: 'Kindly enter the OTP sent to your phone',
      });
      return {
        message: 'Charge initiated',
        data: this.wire(tx),
        meta: { authorization: { mode: 'otp', endpoint: '/v3/validate-charge' } },
      };
    }
    if (card.auth === 'redirect') {
      Object.assign(tx, {
        auth_model: 'VBVSECURECODE',
        awaiting: 'redirect',
        processor_response: 'Pending redirect to issuer',
      });
      return {
        message: 'Charge initiated',
        data: this.wire(tx),
        meta: { authorization: { mode: 'redirect', redirect: `${this.base}/mockvbvpage?ref=${tx.flw_ref}` } },
      };
    }
    if (card.outcome !== 'ok') {
      Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[card.outcome], held: 0 });
      return { message: 'Charge initiated', data: this.wire(tx) };
    }
    Object.assign(tx, {
      status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
      processor_response: 'Approved',
    });
    return { message: 'Charge initiated', data: this.wire(tx) };
  }

  protected tokenizedCharge(p: Record<string, unknown>): Record<string, unknown> {
    for (const f of ['token', 'email', 'currency', 'amount', 'tx_ref'])
      if (p[f] === undefined || p[f] === '') throw new ApiError(400, `${f} is required`);
    const saved = this.tokens.get(String(p.token));
    if (!saved) throw new ApiError(400, 'Token not found');
    if (String(p.email).toLowerCase() !== saved.email.toLowerCase())
      throw new ApiError(400, 'Email does not match the email used to create this token');
    const tx = this.newTx(p, 'card', p.preauthorize === true);
    const card = TEST_CARDS[saved.number] ?? this.extraCards[saved.number];
    const first = [...this.txs.values()].find((t) => t.cardToken === p.token);
    tx.meta = { ...(tx.meta ?? {}), __card: saved.number };
    tx.card = first?.card ?? cardOf(saved.number, card, '01', '30');
    tx.cardToken = String(p.token);
    if (saved.outcome !== 'ok') {
      Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[saved.outcome] });
      return { message: 'Charge failed', data: this.wire(tx) };
    }
    if (tx.charge_type === 'preauth') tx.held = tx.amount;
    Object.assign(tx, {
      status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
      processor_response: 'Approved',
      auth_model: 'noauth',
    });
    return { message: 'Charge successful', data: this.wire(tx) };
  }

  protected mobileCharge(type: string, p: Record<string, unknown>): Record<string, unknown> {
    const m = MOBILE[type]!;
    if (!m.currency.includes(String(p.currency)))
      throw new ApiError(400, `Invalid currency ${String(p.currency)} for ${type}`);
    if (!/^\d{9,15}$/.test(String(p.phone_number ?? ''))) throw new ApiError(400, 'phone_number is required');
    for (const f of m.needs ?? []) if (!p[f]) throw new ApiError(400, `${f} is required`);
    const tx = this.newTx(p, type === 'mpesa' ? 'mpesa' : 'mobilemoney', false);
    Object.assign(tx, { awaiting: 'phone', auth_model: type === 'mpesa' ? 'LIPA_MPESA' : 'MOBILEMONEY' });
    if (m.redirect)
      return {
        message: 'Charge initiated',
        meta: { authorization: { redirect: `${this.base}/captcha/verify/${tx.id}`, mode: 'redirect' } },
      };
    return { message: 'Charge initiated', data: this.wire(tx) };
  }
}
