import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
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
      summary: "The payment methods for the cabinet's currency",
      querystring: Type.Object({ qrcode: Type.String({ minLength: 1, maxLength: 500 }) }),
      response: { 200: Envelope(Type.Array(Method)) },
    },
    preHandler: app.requireUser,
  }, async (req) => {
    const { priced } = await opts.rentals.resolveCabinet(req.query.qrcode);
    const c = priced.venue.currency;
    return ok(opts.payments.methods(c, currencySymbol(c)));
  });
}
