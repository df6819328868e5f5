// The ops API's payment settings of an agent (docs/api.md "Payment methods of an agent"): which methods its riders
// are offered and each method's configuration keys. A key's value is write-only: the answers say whether each key is
// set (in the console, or by the installation's PAYMENT_METHODS), never what it is.
import { Type, type Static } from 'typebox';
import { Reason } from './common.ts';

export const PaymentSettingsParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
export const PaymentMethodParams = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
  method: Type.String({ pattern: '^[a-z0-9_-]{1,40}$' }),
});

export const PaymentKeyState = Type.Object({
  name: Type.String(),
  required: Type.Boolean(),
  /** `console`: saved here (sealed); `environment`: from PAYMENT_METHODS; `unset`: neither. */
  state: Type.Union([Type.Literal('console'), Type.Literal('environment'), Type.Literal('unset')]),
});
export type PaymentKeyState = Static<typeof PaymentKeyState>;

export const PaymentMethodSetting = Type.Object({
  method: Type.String({
    description: "the adapter id (the PAYMENT_METHODS key), or `debitcard`: the card provider's debit-only card form",
  }),
  /** The payment types riders see (the adapter's labels). */
  labels: Type.Array(Type.String()),
  currencies: Type.Optional(Type.Array(Type.String())),
  enabled: Type.Boolean({ description: "whether the agent's riders are offered it now" }),
  /** SANDBOX=on only: riders are offered the method's test mode (the platform's methods without keys of their own). */
  testMode: Type.Optional(Type.Boolean()),
  /** Where the switch comes from: saved in the console, PAYMENT_METHODS, or neither (off). */
  source: Type.Union([Type.Literal('console'), Type.Literal('environment'), Type.Literal('none')]),
  keys: Type.Array(PaymentKeyState),
  /** The saved row's version (0: nothing saved in the console yet); also the ETag ("v<version>"). */
  version: Type.Integer({ minimum: 0 }),
  updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
});
export type PaymentMethodSetting = Static<typeof PaymentMethodSetting>;

export const PaymentSettings = Type.Object({
  agentId: Type.String(),
  /** Whether this agent's riders are offered the agent's own methods (else the platform's). */
  own: Type.Boolean(),
  /** Whether the installation can seal new key values (PAYMENT_SETTINGS_KEY, or the sandbox's own key). */
  canSeal: Type.Boolean(),
  items: Type.Array(PaymentMethodSetting),
});
export type PaymentSettings = Static<typeof PaymentSettings>;

export const PaymentMethodSave = Type.Object(
  {
    enabled: Type.Boolean(),
    /**
     * Keys to write: a value sets (or rotates) the key, null clears what the console saved (the environment's value,
     * if any, applies again). Keys not named keep their value.
     */
    keys: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z0-9_]{1,60}$' }),
        Type.Union([Type.String({ minLength: 1, maxLength: 8000 }), Type.Null()]),
      ),
    ),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type PaymentMethodSave = Static<typeof PaymentMethodSave>;
