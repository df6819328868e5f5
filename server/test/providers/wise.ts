// A Wise Platform API test server (test tree only, never shipped): the part of Wise's API the Wise payout adapter
// uses, modelled from Wise's API reference (docs.wise.com: Quote, Recipient Account, Transfer, Fund a transfer):
//   Auth        `Authorization: Bearer <API token>`; a missing or unknown token → 401 {error: invalid_token}.
//   Errors      4xx {errors: [{code, message, path, arguments}]} (NOT_VALID for a refused field).
//   Recipient   POST /v1/accounts {profile, accountHolderName, currency, type, details}: type `iban` checks the
//               IBAN (ISO 13616 mod 97) → NOT_VALID path IBAN; type `aba` needs abartn (9 digits), accountNumber,
//               accountType CHECKING|SAVINGS and the address; a private holder's name has a first and a last name
//               of two characters or more → NOT_VALID path accountHolderName.
//   Quote       POST /v3/profiles/{profileId}/quotes {sourceCurrency, targetCurrency, sourceAmount | targetAmount
//               (never both), targetAccount?, payOut?} → {id: GUID, rate, sourceAmount, targetAmount, …}; another
//               profile's path → 403.
//   Transfer    POST /v1/transfers {targetAccount, quoteUuid, customerTransactionId (UUID), details.reference} →
//               {id, status: incoming_payment_waiting, …}; the same customerTransactionId again → the transfer made
//               the first time (Wise's duplicate check); a quote used by another transfer → 422.
//               GET /v1/transfers/{id}.
//   Fund        POST /v3/profiles/{profileId}/transfers/{transferId}/payments {type: BALANCE} → {type, status:
//               COMPLETED, errorCode: null}, the transfer goes to `processing` and the balance is debited; a short
//               balance → {status: REJECTED, errorCode: transfer.insufficient_funds}, the transfer still waits; a
//               transfer no longer waiting for its money is refused (422), never debited twice.
//   Tests move a transfer on (`advance`: outgoing_payment_sent, bounced_back, …) as Wise's processing would.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';
import { randomUUID } from 'node:crypto';

interface Recipient {
  id: number;
  profile: number;
  accountHolderName: string;
  currency: string;
  type: string;
  details: Record<string, unknown>;
}
interface Quote {
  id: string;
  profile: number;
  sourceCurrency: string;
  targetCurrency: string;
  sourceAmount: number;
  targetAmount: number;
  targetAccount: number | null;
  used: boolean;
}
export interface WiseTransfer {
  id: number;
  user: number;
  targetAccount: number;
  quoteUuid: string;
  status: string;
  customerTransactionId: string;
  sourceCurrency: string;
  sourceValue: number;
  targetCurrency: string;
  targetValue: number;
  details: { reference: string };
  created: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ISO 13616: move the first four characters to the end, letters to numbers, the number mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) rem = (rem * 10 + Number(d)) % 97;
  }
  return rem === 1;
}

const notValid = (path: string, message: string) =>
  [422, { errors: [{ code: 'NOT_VALID', message, path, arguments: [path] }] }] as const;

export class FakeWise extends LocalServer {
  private seq = 0;
  readonly recipients = new Map<number, Recipient>();
  readonly quotes = new Map<string, Quote>();
  readonly transfers = new Map<number, WiseTransfer>();
  /** Every funding that moved money (a transfer funded twice would show here twice). */
  readonly fundings: { transferId: number; amount: number; currency: string }[] = [];
  readonly requests: { method: string; path: string }[] = [];

  constructor(
    readonly token: string,
    readonly profileId: number,
    readonly balances: Record<string, number>,
    readonly userId = 4242,
  ) {
    super();
  }

  /** Wise's processing moves a transfer on. */
  advance(id: number | string, status: string) {
    const t = this.transfers.get(Number(id));
    if (!t) throw new Error(`no transfer ${id}`);
    t.status = status;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method, path });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${this.token}`)
      return send(401, { error: 'invalid_token', error_description: 'Invalid token' });
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return send(400, { errors: [{ code: 'INVALID_JSON', message: 'Malformed JSON' }] });
      }
    }
    const [status, out] = this.route(method, path, body);
    send(status, out);
  }

  private route(method: string, path: string, b: Record<string, unknown>): readonly [number, unknown] {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/accounts') return this.createRecipient(b);
    if (method === 'POST' && (m = /^\/v3\/profiles\/(\d+)\/quotes$/.exec(path)))
      return this.createQuote(Number(m[1]), b);
    if (method === 'POST' && path === '/v1/transfers') return this.createTransfer(b);
    if (method === 'GET' && (m = /^\/v1\/transfers\/(\d+)$/.exec(path))) {
      const t = this.transfers.get(Number(m[1]));
      return t ? [200, t] : [404, { errors: [{ code: 'NOT_FOUND', message: 'Transfer not found' }] }];
    }
    if (method === 'POST' && (m = /^\/v3\/profiles\/(\d+)\/transfers\/(\d+)\/payments$/.exec(path)))
      return this.fund(Number(m[1]), Number(m[2]), b);
    return [404, { errors: [{ code: 'NOT_FOUND', message: `No route ${method} ${path}` }] }];
  }

  private createRecipient(b: Record<string, unknown>): readonly [number, unknown] {
    if (b.profile !== this.profileId) return [403, { errors: [{ code: 'FORBIDDEN', message: 'Not your profile' }] }];
    const name = typeof b.accountHolderName === 'string' ? b.accountHolderName.trim() : '';
    const parts = name.split(/\s+/);
    if (parts.length < 2 || parts[0]!.length < 2 || parts[parts.length - 1]!.length < 2 || /\d/.test(name)) {
      return notValid('accountHolderName', 'Please enter the recipients first and last name.');
    }
    const d = (b.details ?? {}) as Record<string, unknown>;
    if (d.legalType !== 'PRIVATE' && d.legalType !== 'BUSINESS')
      return notValid('legalType', 'Please specify legalType.');
    if (b.type === 'iban') {
      if (typeof d.iban !== 'string' || !ibanValid(d.iban)) return notValid('IBAN', 'Please specify a valid IBAN.');
    } else if (b.type === 'aba') {
      if (typeof d.abartn !== 'string' || !/^\d{9}$/.test(d.abartn))
        return notValid('abartn', 'Please specify a valid routing number.');
      if (typeof d.accountNumber !== 'string' || !/^\d{4,17}$/.test(d.accountNumber))
        return notValid('accountNumber', 'Please specify a valid account number.');
      if (d.accountType !== 'CHECKING' && d.accountType !== 'SAVINGS')
        return notValid('accountType', 'Please specify accountType.');
      const a = (d.address ?? {}) as Record<string, unknown>;
      for (const f of ['country', 'city', 'firstLine', 'postCode'])
        if (typeof a[f] !== 'string' || !a[f]) return notValid(`address.${f}`, 'Address is required.');
    } else {
      return notValid('type', 'Unsupported recipient type.');
    }
    const r: Recipient = {
      id: 40_000_000 + ++this.seq,
      profile: this.profileId,
      accountHolderName: name,
      currency: String(b.currency),
      type: String(b.type),
      details: d,
    };
    this.recipients.set(r.id, r);
    return [200, { ...r, user: this.userId, country: null, active: true, ownedByCustomer: false }];
  }

  private createQuote(profile: number, b: Record<string, unknown>): readonly [number, unknown] {
    if (profile !== this.profileId) return [403, { errors: [{ code: 'FORBIDDEN', message: 'Not your profile' }] }];
    const hasSource = typeof b.sourceAmount === 'number';
    const hasTarget = typeof b.targetAmount === 'number';
    if (hasSource === hasTarget)
      return [
        422,
        { errors: [{ code: 'error.quote.amount', message: 'Specify sourceAmount or targetAmount, not both.' }] },
      ];
    if (typeof b.sourceCurrency !== 'string' || typeof b.targetCurrency !== 'string')
      return notValid('sourceCurrency', 'Currencies are required.');
    if (b.sourceCurrency !== b.targetCurrency)
      return [422, { errors: [{ code: 'error.route', message: 'Only same-currency payouts in this test server.' }] }];
    const amount = Number(hasSource ? b.sourceAmount : b.targetAmount);
    const q: Quote = {
      id: randomUUID(),
      profile,
      sourceCurrency: b.sourceCurrency,
      targetCurrency: b.targetCurrency,
      sourceAmount: amount,
      targetAmount: amount,
      targetAccount: typeof b.targetAccount === 'number' ? b.targetAccount : null,
      used: false,
    };
    this.quotes.set(q.id, q);
    return [
      200,
      {
        ...q,
        rate: 1,
        rateType: 'FIXED',
        payOut: b.payOut ?? 'BANK_TRANSFER',
        providedAmountType: hasSource ? 'SOURCE' : 'TARGET',
        status: 'PENDING',
      },
    ];
  }

  private createTransfer(b: Record<string, unknown>): readonly [number, unknown] {
    const ctid = typeof b.customerTransactionId === 'string' ? b.customerTransactionId : '';
    if (!UUID.test(ctid)) return notValid('customerTransactionId', 'customerTransactionId must be a UUID.');
    const earlier = [...this.transfers.values()].find((t) => t.customerTransactionId === ctid);
    if (earlier) return [200, earlier];
    const q = this.quotes.get(String(b.quoteUuid));
    if (!q) return notValid('quoteUuid', 'Quote not found.');
    if (q.used)
      return [
        422,
        { errors: [{ code: 'error.quote.used', message: 'A transfer was already created from this quote.' }] },
      ];
    const acct = this.recipients.get(Number(b.targetAccount));
    if (!acct) return notValid('targetAccount', 'Recipient not found.');
    q.used = true;
    const t: WiseTransfer = {
      id: 16_000_000 + ++this.seq,
      user: this.userId,
      targetAccount: acct.id,
      quoteUuid: q.id,
      status: 'incoming_payment_waiting',
      customerTransactionId: ctid,
      sourceCurrency: q.sourceCurrency,
      sourceValue: q.sourceAmount,
      targetCurrency: q.targetCurrency,
      targetValue: q.targetAmount,
      details: { reference: String((b.details as { reference?: string } | undefined)?.reference ?? '') },
      created: new Date().toISOString(),
    };
    this.transfers.set(t.id, t);
    return [200, t];
  }

  private fund(profile: number, id: number, b: Record<string, unknown>): readonly [number, unknown] {
    if (profile !== this.profileId) return [403, { errors: [{ code: 'FORBIDDEN', message: 'Not your profile' }] }];
    if (b.type !== 'BALANCE') return notValid('type', 'Only BALANCE funding.');
    const t = this.transfers.get(id);
    if (!t) return [404, { errors: [{ code: 'NOT_FOUND', message: 'Transfer not found' }] }];
    if (t.status !== 'incoming_payment_waiting')
      return [422, { errors: [{ code: 'transfer.not_awaiting_funding', message: `Transfer is ${t.status}` }] }];
    const have = this.balances[t.sourceCurrency] ?? 0;
    if (have < t.sourceValue)
      return [200, { type: 'BALANCE', status: 'REJECTED', errorCode: 'transfer.insufficient_funds' }];
    this.balances[t.sourceCurrency] = have - t.sourceValue;
    this.fundings.push({ transferId: t.id, amount: t.sourceValue, currency: t.sourceCurrency });
    t.status = 'processing';
    return [201, { type: 'BALANCE', status: 'COMPLETED', errorCode: null }];
  }
}
