import { Envelope } from '#contract/envelope.ts';
import { PaymentMethod, PaymentMethodsQuery } from '#contract/payments.ts';
import { Type } from 'typebox';
import { ok } from '../../lib/envelope.ts';
import { badRequest } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import type { RentalsService } from '../rentals/service.ts';
import { currencySymbol } from '../venues/service.ts';
import type { PaymentsService } from './service.ts';

export default async function paymentRoutes(app: App, opts: { payments: PaymentsService; rentals: RentalsService }) {
  app.get('/cdb/payment/method/list', {
    schema: {
      tags: ['payments'],
      summary: "The payment methods for the cabinet's currency (qrcode), or for a wallet's currency (currency, agentId)",
      querystring: PaymentMethodsQuery,
      response: { 200: Envelope(Type.Array(PaymentMethod)) },
    },
    preHandler: app.requireUser,
  }, async (req) => {
    let c: string;
    if (req.query.qrcode) c = (await opts.rentals.resolveCabinet(req.query.qrcode)).priced.venue.currency;
    else if (req.query.currency) c = req.query.currency.toUpperCase();
    else throw badRequest('error.validation.field', { field: 'qrcode' });
    return ok(opts.payments.methods(c, currencySymbol(c)));
  });
}
