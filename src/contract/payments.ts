// Payment methods (spec §7 cdb/payment/method/list) and the sandbox card provider's tokenisation.
import { Type, type Static } from 'typebox';

export const PaymentMethod = Type.Object({
  pId: Type.String(),
  pPaymentType: Type.String(),
  label: Type.String(),
  currencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  publicKey: Type.String({ description: 'pk_sandbox_… means: use the sandbox card form' }),
  configDetails: Type.Object({ accountCountry: Type.String(), currency: Type.String() }),
});
export type PaymentMethod = Static<typeof PaymentMethod>;

export const PaymentMethodsQuery = Type.Object({
  qrcode: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  agentId: Type.Optional(Type.String({ maxLength: 64 })),
});
export type PaymentMethodsQuery = Static<typeof PaymentMethodsQuery>;

const CardField = Type.Optional(Type.String({ maxLength: 64 }));
/** POST /sandbox-pay/v1/tokens (the provider's own shape, not the app envelope). */
export const SandboxTokenBody = Type.Object({ publicKey: CardField, number: CardField, expMonth: CardField, expYear: CardField, cvc: CardField });
export type SandboxTokenBody = Static<typeof SandboxTokenBody>;
export const SandboxToken = Type.Object({
  id: Type.String(),
  card: Type.Object({ brand: Type.String(), last4: Type.String(), expMonth: Type.Integer(), expYear: Type.Integer() }),
});
export type SandboxToken = Static<typeof SandboxToken>;
