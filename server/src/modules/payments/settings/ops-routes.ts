// The ops API's payment methods of an agent: the list (which methods are on, which keys are set), one method (ETag),
// and a save (If-Match). Owners and admins of the agent change them; finance reads them. Key values go in, never out.
import type { App } from '../../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../../lib/ops-concurrency.ts';
import {
  PaymentMethodParams,
  PaymentMethodSave,
  PaymentMethodSetting,
  PaymentSettings,
  PaymentSettingsParams,
} from '#contract/ops/payment-settings.ts';
import { actorOf } from '../../../plugins/ops-api.ts';
import type { PaymentSettingsService } from './service.ts';

export function paymentSettingsOpsRoutes(o: { settings: PaymentSettingsService }) {
  return async (ops: App) => {
    ops.get(
      '/agents/:id/payment-methods',
      {
        config: { permission: 'payments.read' },
        schema: {
          description:
            'Every payment method the agent can offer: whether it is on, and for each configuration key whether it is set (in the console or ' +
            "by PAYMENT_METHODS), never its value. The platform's own agent is visible to platform-wide staff only.",
          params: PaymentSettingsParams,
          response: { 200: PaymentSettings },
        },
      },
      async (req) => o.settings.list(req.opsScope, req.params.id),
    );

    ops.get(
      '/agents/:id/payment-methods/:method',
      {
        config: { permission: 'payments.read' },
        schema: { params: PaymentMethodParams, response: { 200: PaymentMethodSetting } },
      },
      async (req, reply) => {
        const s = await o.settings.one(req.opsScope, req.params.id, req.params.method);
        sendVersion(reply, s.version);
        return s;
      },
    );

    ops.put(
      '/agents/:id/payment-methods/:method',
      {
        config: { permission: 'payments.configure' },
        schema: {
          description:
            "Switches the method on or off for the agent's riders and writes its keys (a value sets or rotates a key, null clears it); sealed at " +
            'rest, offered from the next request on. A method switched on needs every required key (400 naming the missing ones); a key the method ' +
            'does not take is a 400. Needs If-Match with the ETag read ("v0" before the first save); a save after another one answers 409. ' +
            '409 too when the installation has no PAYMENT_SETTINGS_KEY to seal keys with. With SANDBOX=off and no PUBLIC_URL, a method whose ' +
            'provider calls this server back is refused (422), as at start-up.',
          errors: [404, 409, 422],
          params: PaymentMethodParams,
          body: PaymentMethodSave,
          response: { 200: PaymentMethodSetting },
        },
      },
      async (req, reply) => {
        const s = await o.settings.save(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          req.params.method,
          expectedVersion(req),
          req.body,
        );
        sendVersion(reply, s.version);
        return s;
      },
    );
  };
}
