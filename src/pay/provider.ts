// Card providers behind one small interface. The sandbox provider tokenises against the server's sandbox
// endpoint; a real provider (Stripe, via @stripe/stripe-js loaded lazily on the confirm screen) plugs in here.
import type { PaymentMethod } from '../api/payment.ts';
import { siblingUrl } from '../api/client.ts';
import type { SandboxToken } from '../contract/payments.ts';

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface CardToken {
  id: string;
  brand?: string;
  last4?: string;
}

export class CardProviderError extends Error {
  override name = 'CardProviderError';
  constructor(
    /** Provider code (card_declined, incorrect_number, …) or 'network'. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CardProvider {
  readonly id: string;
  /** Test mode: the screen shows the test card numbers. */
  readonly sandbox: boolean;
  tokenize(card: CardDetails): Promise<CardToken>;
}

export const SANDBOX_KEY_PREFIX = 'pk_sandbox_';
export const SANDBOX_TOKENS_PATH = '/sandbox-pay/v1/tokens';
/**
 * The sandbox card provider's test cards (server: payments/sandbox.ts), with their funding type: the debit-only
 * payment type (`debitcard`) takes only the debit ones (Stripe's test debit cards); prepaid is not debit.
 */
export const SANDBOX_TEST_CARDS = [
  { number: '4242 4242 4242 4242', outcome: 'succeeds', funding: 'credit' },
  { number: '4000 0566 5566 5556', outcome: 'debit', funding: 'debit' },
  { number: '5200 8282 8282 8210', outcome: 'debit', funding: 'debit' },
  { number: '5105 1051 0510 5100', outcome: 'prepaid', funding: 'prepaid' },
  { number: '4000 0000 0000 0002', outcome: 'declined', funding: 'credit' },
  { number: '4000 0000 0000 9995', outcome: 'insufficientFunds', funding: 'credit' },
] as const;

/** The payment type that takes only debit cards, through the card provider's own form. */
export const DEBIT_CARD_TYPE = 'debitcard';

export function sandboxProvider(publicKey: string, fetchImpl: typeof fetch = (...a) => fetch(...a)): CardProvider {
  return {
    id: 'sandbox',
    sandbox: true,
    async tokenize(card) {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), 10_000);
      let res: Response;
      try {
        res = await fetchImpl(siblingUrl(SANDBOX_TOKENS_PATH), {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ publicKey, ...card }),
          signal: ctrl.signal,
        });
      } catch {
        throw new CardProviderError('network', 'network');
      } finally {
        clearTimeout(timer);
      }
      // The token (src/contract/payments.ts SandboxToken), or the provider's error {error: {code, message}}.
      const body = (await res.json().catch(() => null)) as
        (Partial<SandboxToken> & { error?: { code?: string; message?: string } }) | null;
      if (!res.ok || !body?.id) {
        throw new CardProviderError(body?.error?.code ?? 'unknown', body?.error?.message ?? `HTTP ${res.status}`);
      }
      return { id: body.id, brand: body.card?.brand, last4: body.card?.last4 };
    },
  };
}

/** What the provider choice reads of a payment method. */
type MethodKey = Pick<PaymentMethod, 'pId' | 'pPaymentType' | 'publicKey'>;

/** The provider for a payment method, or null when this build has none for it (e.g. a live Stripe key). */
export function cardProviderFor(method: MethodKey): CardProvider | null {
  if (method.publicKey?.startsWith(SANDBOX_KEY_PREFIX)) return sandboxProvider(method.publicKey);
  // Live card keys: a Stripe adapter (import('./stripe.ts'), loading @stripe/stripe-js) comes with a later issue.
  return null;
}

/** Card methods of the list: the card type first. */
export function pickCardMethod<M extends MethodKey>(methods: readonly M[]): M | undefined {
  return methods.find((m) => m.pPaymentType === 'STRIPE_CARD') ?? methods.find((m) => m.publicKey);
}
