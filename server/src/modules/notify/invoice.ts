// Order receipts by e-mail ("Tourist invoice", invoice check / cdb/invoice/sendCdbOrderReceipt).
// check(): the receipt of one of the user's orders, or null while there is nothing to receipt (the eject has
// not happened, or the rental was cancelled). sendReceipt(): composes the receipt in the request's language,
// sends it through the Mailer and records it.
import type { Clock } from '../../lib/clock.ts';
import { badRequest, refused } from '../../lib/errors.ts';
import { t, type Locale } from '../../lib/i18n.ts';
import type { UserRow } from '../auth/service.ts';
import type { RentalsService } from '../rentals/service.ts';
import { Zujie } from '../rentals/order-state.ts';
import { formatMoney } from '#core/money.ts';
import type { Mailer } from './mailer.ts';
import type { NotifyRepository } from './repository.ts';
import type { Receipt } from '#contract/notify.ts';

export type { Receipt } from '#contract/notify.ts';

// Loose but real: one @, a dot in the domain, no spaces; the SMTP peer is the final judge.
import { EMAIL } from '#core/email.ts';

export class InvoiceService {
  constructor(private readonly d: { repo: NotifyRepository; clock: Clock; rentals: RentalsService; mailer: Mailer }) {}

  async check(user: UserRow, orderId: string): Promise<Receipt | null> {
    const o = await this.d.rentals.check(user, orderId);
    if (o.zujie === Zujie.pending || o.zujie === Zujie.cancelled) return null;
    const w = this.d.rentals.toWire(o);
    const lastEmail = await this.d.repo.lastReceiptEmail(o.id);
    const ended = o.zujie === Zujie.returned || o.zujie === Zujie.overtimeReturn;
    return {
      orderId: o.id,
      shopName: w.pShopName,
      returnShopName: w.pGhShopName,
      borrowTime: w.pBorrowtime,
      returnTime: w.pGhtime,
      ended,
      currency: o.currency,
      amount: ended ? w.pJiesuan : w.estimatedAmount,
      deposit: w.pYajin,
      useMinutes: w.pUseMins,
      lastEmail: lastEmail ?? null,
      deviceType: o.device_kind,
      deviceId: w.pPowerbankId,
    };
  }

  async sendReceipt(user: UserRow, orderId: string, rawEmail: string, lang: Locale): Promise<{ messageId: string }> {
    const email = rawEmail.trim();
    if (!email) throw badRequest('error.invoice.emailRequired');
    if (!EMAIL.test(email) || email.length > 320) throw badRequest('error.invoice.emailInvalid');
    const r = await this.check(user, orderId);
    if (!r) throw refused('error.invoice.notReady');
    const money = (major: number) => formatMoney(Math.round(major * 10 ** 2), r.currency, lang);
    const when = (iso: string | null) =>
      iso
        ? new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(
            new Date(iso),
          ) + ' UTC'
        : '—';
    const lines = [
      t(lang, 'receipt.greeting'),
      '',
      `${t(lang, 'receipt.order')}: ${r.orderId}`,
      `${t(lang, 'receipt.venue')}: ${r.shopName}`,
      `${t(lang, 'receipt.device')}: ${t(lang, `device.${r.deviceType}`)}${r.deviceId ? ` (${r.deviceId})` : ''}`,
      `${t(lang, 'receipt.borrowed')}: ${when(r.borrowTime)}`,
      `${t(lang, 'receipt.returned')}: ${r.ended ? `${when(r.returnTime)}${r.returnShopName ? ` (${r.returnShopName})` : ''}` : t(lang, 'receipt.inUse')}`,
      `${t(lang, 'receipt.minutes')}: ${r.useMinutes}`,
      `${r.ended ? t(lang, 'receipt.charged') : t(lang, 'receipt.estimated')}: ${money(r.amount)}`,
      `${t(lang, 'receipt.deposit')}: ${money(r.deposit)}`,
      '',
      t(lang, 'receipt.thanks'),
    ];
    const sent = await this.d.mailer.send({
      to: email,
      subject: t(lang, 'receipt.subject', { orderId: r.orderId }),
      text: lines.join('\n'),
    });
    await this.d.repo.recordReceipt({
      orderId: r.orderId,
      userId: user.id,
      email,
      messageId: sent.messageId,
      at: this.d.clock.now(),
    });
    return sent;
  }
}
