import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import { badRequest } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import type { RentalsService } from '../rentals/service.ts';
import { currencySymbol } from '../venues/service.ts';
import type { PaymentsService } from './service.ts';

const Method = Type.Object({
  pId: Type.String(),
  pPaymentType: Type.String(),
  label: Type.String(),
  currencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  publicKey: Type.String({ description: 'pk_sandbox_… means: use the sandbox card form' }),
  configDetails: Type.Object({ accountCountry: Type.String(), currency: Type.String() }),
});

export default async function paymentRoutes(app: App, opts: { payments: PaymentsService; rentals: RentalsService }) {
  app.get('/cdb/payment/method/list', {
    schema: {
      tags: ['payments'],
      summary: "The payment methods for the cabinet's currency (qrcode), or for a wallet's currency (currency, agentId)",
      querystring: Type.Object({
        qrcode: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
        agentId: Type.Optional(Type.String({ maxLength: 64 })),
      }),
      response: { 200: Envelope(Type.Array(Method)) },
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
