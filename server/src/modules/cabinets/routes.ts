import { Envelope } from '#contract/envelope.ts';
import { ScanQuery, ScanResult } from '#contract/cabinets.ts';
import { rentalKind } from '#core/devices.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import type { AuthService } from '../auth/service.ts';
import reservationRoutes from './reservation-routes.ts';
import type { CabinetsService, ReturnReservations } from './service.ts';

export default async function cabinetRoutes(
  app: App,
  opts: { cabinets: CabinetsService; auth: AuthService; reservations: ReturnReservations },
) {
  await app.register(reservationRoutes, { reservations: opts.reservations });
  app.post(
    '/cdb/cabinet/checkisok',
    {
      schema: {
        tags: ['cabinets'],
        summary: 'Scan: the cabinet, its venue and price in the venue currency, and the user wallet in that currency',
        security: [{ token: [] }],
        querystring: ScanQuery,
        response: { 200: Envelope(ScanResult) },
      },
      // The session is read in the scan's own query (one round trip) instead of by requireUser: same rule, same 401.
    },
    async (req) =>
      ok(
        await opts.cabinets.scan(
          { tokenHash: opts.auth.sessionKey(req.headers.token) },
          req.query.url,
          rentalKind(req.query.deviceType),
        ),
      ),
  );
}
