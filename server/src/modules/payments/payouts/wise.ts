// Wise (wise.com) bank payouts through its documented Platform API (docs.wise.com, "Send money"): a payout is a
// transfer from our Wise balance to the payee's bank account, made in four calls:
//
//   recipient  POST /v1/accounts {profile, accountHolderName, currency, type, details} → {id}
//              EUR: type `iban`, details {legalType: PRIVATE, iban}; USD: type `aba`, details {legalType, abartn,
//              accountNumber, accountType: CHECKING | SAVINGS, address {country, city, firstLine, postCode, state}}
//              (Wise asks the address for USD recipients). A refused account: 422 {errors: [{code, message, path}]}.
//   quote      POST /v3/profiles/{profileId}/quotes {sourceCurrency, targetCurrency, targetAmount, targetAccount,
//              payOut: BANK_TRANSFER} → {id} (a GUID; the rate is locked for a while)
//   transfer   POST /v1/transfers {targetAccount, quoteUuid, customerTransactionId, details: {reference}} →
//              {id, status: incoming_payment_waiting, …}. customerTransactionId (a UUID) is Wise's idempotency
//              check: a retried create with the same one answers the transfer made the first time, never a second.
//   fund       POST /v3/profiles/{profileId}/transfers/{transferId}/payments {type: BALANCE} →
//              {type, status: COMPLETED | REJECTED, errorCode} (REJECTED transfer.insufficient_funds: our balance
//              is short; the transfer waits unfunded, Wise cancels it after 14 days).
//   status     GET /v1/transfers/{transferId}: incoming_payment_waiting → processing → funds_converted →
//              outgoing_payment_sent (paid); bounced_back, cancelled, funds_refunded, charged_back (failed).
//
// Authentication: `Authorization: Bearer <API token>`. Our customerTransactionId is a name-based UUID of the
// withdrawal id, so every retry, in this process or after a restart, names the same transfer; a transfer is funded
// only while Wise says it waits for its money, so it is funded once.
import { createHash } from 'node:crypto';
import { toMajor } from '#core/money.ts';
import { ProviderError } from '../methods/adapter.ts';
import { httpClient, type HttpClient, type HttpLog } from '../methods/http.ts';
import { BankPayoutError, type BankPayoutInput, type BankPayoutRail, type BankPayoutStatus } from './rail.ts';

export interface WiseSettings {
  /** A Wise API token of the business profile (Settings → API tokens). */
  apiToken: string;
  /** The business profile id that owns the balance payouts are funded from. */
  profileId: string;
  /** API root; default live https://api.wise.com, sandbox https://api.sandbox.transferwise.tech. */
  apiBase?: string;
  /**
   * The withdrawal channels Wise pays (payouts.json paymentIds); default the SEPA channel. The ACH channel needs the
   * payee's address too (addressLine, city, state, postCode fields on the channel) before it can be listed here.
   */
  channels?: string[];
}

export const WISE_LIVE = 'https://api.wise.com';
export const WISE_SANDBOX = 'https://api.sandbox.transferwise.tech';
/** How each channel's account fields become a Wise recipient. */
const RECIPIENT_TYPES: Record<string, { currency: string; type: string }> = {
  'payout-sepa': { currency: 'EUR', type: 'iban' },
  'payout-ach': { currency: 'USD', type: 'aba' },
};
/** Statuses after which the payee does not get the money (it comes back to our balance). */
const FAILED = new Set(['bounced_back', 'cancelled', 'funds_refunded', 'charged_back']);

interface WiseErrors {
  errors?: { code?: string; message?: string; path?: string }[];
  error?: string;
  error_description?: string;
}
interface Transfer {
  id: number;
  status: string;
  customerTransactionId?: string;
}

/** A name-based UUID (version 5 layout over SHA-256) of our key: the same key always gives the same UUID. */
export function transactionUuid(key: string): string {
  const h = createHash('sha256').update(`powerly-payout:${key}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export class WiseRail implements BankPayoutRail {
  readonly id = 'wise';
  readonly sandbox = false;
  /** Wise moves a transfer in minutes to a day; a status check every 15 minutes. */
  readonly checkEveryMs = 15 * 60_000;
  private readonly base: string;
  private readonly channels: Set<string>;

  private readonly http: HttpClient;

  constructor(
    private readonly s: WiseSettings,
    fetchFn: typeof fetch = (...a) => fetch(...a),
    log?: HttpLog,
  ) {
    this.http = httpClient('wise', { fetch: fetchFn, log });
    this.base = (s.apiBase ?? WISE_LIVE).replace(/\/+$/, '');
    this.channels = new Set(s.channels ?? ['payout-sepa']);
  }

  pays(channel: string, currency: string): boolean {
    return this.channels.has(channel) && RECIPIENT_TYPES[channel]?.currency === currency;
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; data: T & WiseErrors }> {
    const res = await this.http.json<T & WiseErrors>({
      method,
      url: `${this.base}${path}`,
      headers: { authorization: `Bearer ${this.s.apiToken}`, accept: 'application/json' },
      ...(body === undefined ? {} : { json: body }),
    });
    return { status: res.status, data: res.body };
  }

  private static failure(status: number, d: WiseErrors, what: string): ProviderError {
    const e = d.errors?.[0];
    const code = e?.code ?? d.error ?? `http_${status}`;
    return new ProviderError(
      code,
      `Wise ${what}: ${status} ${e?.message ?? d.error_description ?? ''}${e?.path ? ` (${e.path})` : ''}`.trim(),
      status,
    );
  }

  /** The payee as a Wise recipient account (a refused account is invalid_account: the withdrawal is rejected). */
  private async recipient(input: BankPayoutInput): Promise<number> {
    const kind = RECIPIENT_TYPES[input.channel];
    if (!kind)
      throw new BankPayoutError('invalid_account', 'channel_unsupported', `Wise does not pay channel ${input.channel}`);
    const a = input.account;
    const details: Record<string, unknown> = { legalType: 'PRIVATE' };
    if (kind.type === 'iban') details.iban = (a.iban ?? '').replace(/\s/g, '').toUpperCase();
    else {
      Object.assign(details, {
        abartn: a.routingNumber,
        accountNumber: a.accountNumber,
        accountType: (a.accountType ?? '').toUpperCase(),
        address: { country: 'US', city: a.city, firstLine: a.addressLine, postCode: a.postCode, state: a.state },
      });
    }
    const r = await this.call<{ id: number }>('POST', '/v1/accounts', {
      profile: Number(this.s.profileId),
      accountHolderName: a.accountHolder,
      currency: kind.currency,
      type: kind.type,
      details,
    });
    if (r.status === 400 || r.status === 422) {
      const e = accountRefusal(r.data);
      throw new BankPayoutError('invalid_account', e.code, e.message);
    }
    if (r.status >= 300 || typeof r.data.id !== 'number') throw WiseRail.failure(r.status, r.data, 'recipient');
    return r.data.id;
  }

  async submit(input: BankPayoutInput): Promise<{ ref: string }> {
    const customerTransactionId = transactionUuid(input.idempotencyKey);
    const account = await this.recipient(input);
    const quote = await this.call<{ id: string }>('POST', `/v3/profiles/${this.s.profileId}/quotes`, {
      sourceCurrency: input.currency,
      targetCurrency: input.currency,
      targetAmount: toMajor(input.amount, input.currency),
      targetAccount: account,
      payOut: 'BANK_TRANSFER',
    });
    if (quote.status >= 300 || !quote.data.id) throw WiseRail.failure(quote.status, quote.data, 'quote');
    const t = await this.call<Transfer>('POST', '/v1/transfers', {
      targetAccount: account,
      quoteUuid: quote.data.id,
      customerTransactionId,
      details: { reference: input.withdrawalId },
    });
    if (t.status >= 300 || typeof t.data.id !== 'number') throw WiseRail.failure(t.status, t.data, 'transfer');
    const ref = String(t.data.id);
    // Only a transfer still waiting for its money is funded: a retry finds it funded (processing or later).
    if (t.data.status !== 'incoming_payment_waiting') return { ref };
    const f = await this.call<{ status?: string; errorCode?: string | null }>(
      'POST',
      `/v3/profiles/${this.s.profileId}/transfers/${ref}/payments`,
      { type: 'BALANCE' },
    );
    if (f.status < 300 && f.data.status === 'COMPLETED') return { ref };
    if (f.status < 300 && f.data.status === 'REJECTED') {
      throw new BankPayoutError(
        'needs_operator',
        f.data.errorCode ?? 'funding_rejected',
        `Wise refused to fund transfer ${ref}: ${f.data.errorCode ?? ''}`,
        ref,
      );
    }
    // A fund that raced another (the transfer was funded meanwhile) is fine: the transfer's state decides.
    const now = await this.transfer(ref);
    if (now.status !== 'incoming_payment_waiting') return { ref };
    throw WiseRail.failure(f.status, f.data, 'fund');
  }

  private async transfer(ref: string): Promise<Transfer> {
    const r = await this.call<Transfer>('GET', `/v1/transfers/${encodeURIComponent(ref)}`);
    if (r.status >= 300 || typeof r.data.status !== 'string')
      throw WiseRail.failure(r.status, r.data, 'transfer status');
    return r.data;
  }

  async status(ref: string): Promise<BankPayoutStatus> {
    const t = await this.transfer(ref);
    if (t.status === 'outgoing_payment_sent') return { state: 'paid' };
    if (FAILED.has(t.status)) return { state: 'failed', failureCode: t.status };
    return { state: 'processing' };
  }
}

function accountRefusal(d: WiseErrors): { code: string; message: string } {
  const e = d.errors?.[0];
  return {
    code: e?.code ?? 'NOT_VALID',
    message: `${e?.message ?? 'account refused'}${e?.path ? ` (${e.path})` : ''}`,
  };
}
