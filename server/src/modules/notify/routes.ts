import { Envelope } from '#contract/envelope.ts';
import { InvoiceCheckQuery, InvoiceCheckResult, SendReceiptBody } from '#contract/notify.ts';
import { Type } from 'typebox';
import { ok } from '../../lib/envelope.ts';
import { t } from '../../lib/i18n.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { InvoiceService } from './invoice.ts';

export default async function invoiceRoutes(app: App, opts: { invoices: InvoiceService }) {
  app.get(
    '/cdb/invoice/check',
    {
      schema: {
        tags: ['invoice'],
        summary:
          "Whether one of the user's orders can have a receipt: data is the receipt, or null (not yet / cancelled)",
        querystring: InvoiceCheckQuery,
        response: { 200: Envelope(InvoiceCheckResult) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.invoices.check(currentUser(req), req.query.orderId)),
  );

  app.post(
    '/cdb/invoice/sendCdbOrderReceipt',
    {
      schema: {
        tags: ['invoice'],
        summary: 'E-mail the receipt of an order (e-mail required, trimmed), in the request language',
        body: SendReceiptBody,
        response: { 200: Envelope(Type.Null()) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      await opts.invoices.sendReceipt(currentUser(req), req.body.orderId, req.body.email, req.locale);
      return ok(null, 0, t(req.locale, 'status.receiptSent'));
    },
  );
}
