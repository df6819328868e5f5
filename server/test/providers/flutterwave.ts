// A Flutterwave v3 test server (test tree only, never shipped): the part of Flutterwave's v3 HTTP API the
// flutterwave adapter calls, modelled from developer.flutterwave.com (v3) — Bearer secret-key auth (401 "Invalid
// authorization key"), the envelope {status: 'success' | 'error', message, data, meta?}, amounts in major units.
//   charges    POST /v3/charges?type=card {client}: the payload 3DES-24-ECB encrypted with the encryption key
//              (undecryptable → 400); card behaviour per Flutterwave's test cards (below); tx_ref unique per account
//              (a reused one → 400). POST /v3/charges?type=mpesa|mobile_money_*: pending until the customer
//              approves on the phone (approve()); Ghana and Uganda answer with a redirect and no data, as documented.
//   validate   POST /v3/validate-charge {otp, flw_ref, type}: OTP 12345 completes the charge.
//   verify     GET /v3/transactions/{id}/verify, GET /v3/transactions/verify_by_reference?tx_ref=
//   preauth    status pending-capture; POST /v3/charges/{flw_ref}/capture {amount ≤ held} → successful (the rest
//              released); /void → voided; /refund {amount} on a captured preauth.
//   refunds    POST /v3/transactions/{id}/refund {amount}: successful charges, partial, ≤ what is left.
//   transfers  POST /v3/transfers: reference unique (reused → 400); status NEW until completeTransfer().
//   tokens     a successful card charge's verify answer carries data.card {first_6digits, last_4digits, issuer,
//              country, type, token, expiry}; the token is given only once the charge is successful.
//              POST /v3/tokenized-charges {token, email, currency, amount, tx_ref, narration?, preauthorize?}
//              charges that card again (no customer step): the email must be the one the token was made with; an
//              unknown token → 400; the card's outcome (tokenOutcome() sets a later decline or insufficient funds).
// webhook() makes a delivery exactly as Flutterwave sends one: JSON {event, 'event.type', data}, headers verif-hash
// (the secret hash) and flutterwave-signature (base64 HMAC-SHA256 of the raw body keyed by the secret hash).
import { listRefunds, listTransactions } from './flutterwave-reports.ts';
import { createHmac } from 'node:crypto';
import { FlutterwaveCharges } from './flutterwave/charges.ts';
import {
  ApiError,
  MOBILE,
  PROCESSOR,
  TEST_CARDS,
  TEST_OTP,
  type FlwTransfer,
  type FlwTx,
  type Outcome,
} from './flutterwave/model.ts';

export { TEST_CARDS, type FlwTransfer, type FlwTx, type TestCard } from './flutterwave/model.ts';

export class FakeFlutterwave extends FlutterwaveCharges {
  /** What a saved card's next tokenized charge does (a card that has since run out of funds, been blocked). */
  tokenOutcome(token: string, outcome: Outcome) {
    const t = this.tokens.get(token);
    if (!t) throw new Error(`no token ${token}`);
    t.outcome = outcome;
  }

  /** The customer approves: on the phone (mobile money) or on the 3-D Secure page (OTP 12345). */
  approve(txRef: string) {
    const tx = this.byTxRef(txRef);
    if (!tx || tx.status !== 'pending') throw new Error(`no pending charge ${txRef}`);
    tx.status = tx.charge_type === 'preauth' ? 'pending-capture' : 'successful';
    tx.processor_response = 'Approved';
    tx.awaiting = 'none';
    return tx;
  }

  /** The customer declines on the phone / the issuer refuses on the 3DS page. */
  decline(txRef: string, reason = 'Transaction declined by customer') {
    const tx = this.byTxRef(txRef);
    if (!tx || tx.status !== 'pending') throw new Error(`no pending charge ${txRef}`);
    tx.status = 'failed';
    tx.processor_response = reason;
    tx.awaiting = 'none';
    return tx;
  }

  completeTransfer(id: number, ok: boolean) {
    const t = this.transfers.get(id);
    if (!t) throw new Error(`no transfer ${id}`);
    t.status = ok ? 'SUCCESSFUL' : 'FAILED';
    t.complete_message = ok ? 'Transaction was successful' : 'DISBURSE FAILED: Insufficient funds in customer wallet';
    return t;
  }

  /** A webhook delivery as Flutterwave makes it (charge.completed / transfer.completed). */
  webhook(event: 'charge.completed' | 'transfer.completed', id: number, secretHash = this.keys.secretHash) {
    let data: Record<string, unknown>;
    let type: string;
    if (event === 'transfer.completed') {
      const t = this.transfers.get(id)!;
      data = {
        id: t.id,
        account_number: t.account_number,
        bank_code: t.bank_code,
        created_at: t.created_at,
        currency: t.currency,
        debit_currency: t.currency,
        amount: t.amount,
        fee: 10.75,
        status: t.status,
        reference: t.reference,
        meta: null,
        narration: t.narration,
        approver: null,
        complete_message: t.complete_message,
        requires_approval: 0,
        is_approved: 1,
      };
      type = 'Transfer';
    } else {
      data = this.wire(this.txs.get(id)!);
      type = this.txs.get(id)!.payment_type === 'card' ? 'CARD_TRANSACTION' : 'MOBILEMONEY_TRANSACTION';
    }
    const rawBody = JSON.stringify({ event, data, 'event.type': type });
    return {
      rawBody,
      headers: {
        'content-type': 'application/json',
        'verif-hash': secretHash,
        'flutterwave-signature': createHmac('sha256', secretHash).update(rawBody).digest('base64'),
      } as Record<string, string>,
      query: {} as Record<string, string>,
    };
  }

  protected route(
    method: string,
    url: URL,
    body: Record<string, unknown>,
    entry: { payload?: Record<string, unknown> },
  ): Record<string, unknown> {
    const seg = url.pathname.split('/').filter(Boolean); // ['v3', resource, id?, action?]
    const [v, resource, id, action] = seg;
    if (v !== 'v3') throw new ApiError(404, `Cannot ${method} ${url.pathname}`);
    if (resource === 'charges' && !id && method === 'POST') {
      const type = url.searchParams.get('type') ?? '';
      if (type === 'card') {
        if (typeof body.client !== 'string') throw new ApiError(400, 'client is required');
        let p: Record<string, unknown>;
        try {
          p = this.decrypt(body.client);
        } catch {
          throw new ApiError(400, 'Unable to decrypt the client payload: check your encryption key');
        }
        entry.payload = p;
        return this.cardCharge(p);
      }
      if (MOBILE[type]) return this.mobileCharge(type, body);
      throw new ApiError(400, `Invalid charge type: ${type}`);
    }
    if (resource === 'charges' && id && method === 'POST') {
      const tx = [...this.txs.values()].find((t) => t.flw_ref === id);
      if (!tx) throw new ApiError(404, 'No transaction found');
      if (action === 'capture') {
        if (tx.status !== 'pending-capture')
          throw new ApiError(400, `Cannot capture a transaction with status ${tx.status}`);
        const amount = body.amount === undefined ? tx.held : Number(body.amount);
        if (!(amount > 0) || amount > tx.held)
          throw new ApiError(400, 'Capture amount cannot be greater than the authorised amount');
        Object.assign(tx, { status: 'successful', amount, charged_amount: amount, held: 0 });
        return { message: 'Charge captured', data: this.wire(tx) };
      }
      if (action === 'void') {
        if (tx.status !== 'pending-capture')
          throw new ApiError(400, `Cannot void a transaction with status ${tx.status}`);
        Object.assign(tx, { status: 'voided', held: 0 });
        return { message: 'Charge voided', data: this.wire(tx) };
      }
      if (action === 'refund') {
        if (tx.charge_type !== 'preauth') throw new ApiError(400, 'Only preauthorised charges can be refunded here');
        return this.refund(tx, body.amount);
      }
    }
    if (resource === 'validate-charge' && method === 'POST') {
      const tx = [...this.txs.values()].find((t) => t.flw_ref === body.flw_ref);
      if (!tx) throw new ApiError(400, 'No transaction found for this flw_ref');
      if (tx.status !== 'pending' || tx.awaiting !== 'otp')
        throw new ApiError(400, 'Transaction has already been validated');
      if (String(body.otp) !== TEST_OTP) throw new ApiError(400, 'Invalid OTP');
      const n = String(tx.meta?.__card ?? '');
      const card = TEST_CARDS[n] ?? this.extraCards[n];
      tx.awaiting = 'none';
      if (card && card.outcome !== 'ok')
        Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[card.outcome] });
      else
        Object.assign(tx, {
          status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
          processor_response: 'Approved',
        });
      return { message: 'Charge validated', data: this.wire(tx) };
    }
    if (resource === 'transactions' && !id && method === 'GET')
      return listTransactions(
        [...this.txs.values()].map((t) => this.wire(t)),
        url.searchParams,
      );
    if (resource === 'refunds' && !id && method === 'GET') return listRefunds(this.refunds, url.searchParams);
    if (resource === 'transactions' && method === 'GET') {
      const tx =
        id === 'verify_by_reference'
          ? this.byTxRef(url.searchParams.get('tx_ref') ?? '')
          : action === 'verify'
            ? this.txs.get(Number(id))
            : undefined;
      if (!tx) throw new ApiError(400, 'No transaction was found for this id');
      const data = this.wire(tx);
      if (this.verifyAmountOverride !== null) {
        data.amount = this.verifyAmountOverride;
        this.verifyAmountOverride = null;
      }
      return { message: 'Transaction fetched successfully', data };
    }
    if (resource === 'transactions' && action === 'refund' && method === 'POST') {
      const tx = this.txs.get(Number(id));
      if (!tx) throw new ApiError(400, 'No transaction was found for this id');
      return this.refund(tx, body.amount);
    }
    if (resource === 'transfers' && !id && method === 'POST') return this.transfer(body);
    if (resource === 'tokenized-charges' && !id && method === 'POST') return this.tokenizedCharge(body);
    throw new ApiError(404, `Cannot ${method} ${url.pathname}`);
  }

  private refund(tx: FlwTx, raw: unknown): Record<string, unknown> {
    if (tx.status !== 'successful') throw new ApiError(400, `Cannot refund a transaction with status ${tx.status}`);
    const left = Number((tx.amount - tx.refunded).toFixed(2));
    const amount = raw === undefined ? left : Number(raw);
    if (!(amount > 0)) throw new ApiError(400, 'amount must be greater than 0');
    if (amount > left)
      throw new ApiError(400, 'Refund amount cannot be greater than the transaction amount left to refund');
    tx.refunded = Number((tx.refunded + amount).toFixed(2));
    const r = {
      id: ++this.seq,
      tx_id: tx.id,
      amount_refunded: amount,
      status: 'completed',
      created_at: this.now().toISOString(),
    };
    this.refunds.push(r);
    return {
      message: 'Transaction refund initiated',
      data: {
        ...r,
        account_id: 1,
        flw_ref: tx.flw_ref,
        wallet_id: 1,
        status: 'completed',
        destination: 'payment_source',
        meta: { source: 'availablebalance' },
      },
    };
  }

  private transfer(p: Record<string, unknown>): Record<string, unknown> {
    for (const f of ['account_bank', 'account_number', 'amount', 'currency', 'reference'])
      if (p[f] === undefined || p[f] === '') throw new ApiError(400, `${f} is required`);
    const reference = String(p.reference);
    if ([...this.transfers.values()].some((t) => t.reference === reference))
      throw new ApiError(400, 'Duplicate reference: a transfer with this reference already exists');
    const t: FlwTransfer = {
      id: ++this.seq,
      reference,
      account_number: String(p.account_number),
      bank_code: String(p.account_bank),
      amount: Number(p.amount),
      currency: String(p.currency),
      status: 'NEW',
      narration: String(p.narration ?? ''),
      complete_message: '',
      created_at: new Date().toISOString(),
    };
    this.transfers.set(t.id, t);
    return {
      message: 'Transfer Queued Successfully',
      data: {
        ...t,
        full_name: 'N/A',
        debit_currency: t.currency,
        fee: 10.75,
        meta: null,
        requires_approval: 0,
        is_approved: 1,
        bank_name: t.bank_code === 'MPS' ? 'MPESA' : 'BANK',
      },
    };
  }
}
