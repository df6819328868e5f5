// The sandbox's test cards (docs/api.md): their outcomes and funding types, the number checks of the tokenisation
// endpoint and its single-use tokens, and the saved cards a method's test mode keeps (SandboxCardProvider in
// sandbox.ts re-exports what others use).
import type { Clock } from '../../lib/clock.ts';
import { randomToken } from '../../lib/ids.ts';
import type { CardSummary } from './provider.ts';
import type { SandboxAcquirerRepository } from './sandbox-repository.ts';

export class SandboxError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 402,
  ) {
    super(message);
  }
}

const TEST_OUTCOMES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
};

/**
 * The funding type of a test card, as the card network reports it (Stripe's test cards: 4000 0566 5566 5556 Visa
 * debit, 5200 8282 8282 8210 Mastercard debit, 5105 1051 0510 5100 Mastercard prepaid); any other card is credit.
 */
export const TEST_FUNDING: Record<string, 'debit' | 'prepaid'> = {
  '4000056655665556': 'debit',
  '5200828282828210': 'debit',
  '5105105105105100': 'prepaid',
};

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(n: string): string {
  if (n.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  return 'unknown';
}

export interface TokenInput {
  publicKey?: string;
  number?: string;
  expMonth?: string | number;
  expYear?: string | number;
  cvc?: string;
}

/** The client-side tokenisation endpoint's logic: a test card checked and kept as a single-use token. */
export async function tokenize(
  repo: SandboxAcquirerRepository,
  key: string,
  clock: Clock,
  input: TokenInput,
): Promise<{ id: string; card: CardSummary & { expMonth: number; expYear: number; funding: string } }> {
  if (input.publicKey !== key) throw new SandboxError('invalid_public_key', 'Invalid API key provided.', 401);
  const number = (input.number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    throw new SandboxError('incorrect_number', 'Your card number is incorrect.');
  }
  const month = Number(input.expMonth);
  let year = Number(input.expYear);
  if (year < 100) year += 2000;
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    throw new SandboxError('invalid_expiry_month', "Your card's expiration month is invalid.");
  }
  const now = clock.now();
  if (
    !Number.isInteger(year) ||
    year < now.getUTCFullYear() ||
    (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)
  ) {
    throw new SandboxError('expired_card', 'Your card has expired.');
  }
  if (!/^\d{3,4}$/.test(input.cvc ?? ''))
    throw new SandboxError('invalid_cvc', "Your card's security code is invalid.");
  const id = `tok_${randomToken(18)}`;
  const card = {
    brand: brandOf(number),
    last4: number.slice(-4),
    expMonth: month,
    expYear: year,
    funding: TEST_FUNDING[number] ?? 'credit',
  };
  await repo.insertToken({
    id,
    publicKey: key,
    brand: card.brand,
    last4: card.last4,
    expMonth: month,
    expYear: year,
    outcome: TEST_OUTCOMES[number] ?? 'ok',
    funding: card.funding,
    at: now,
  });
  return { id, card };
}

/**
 * The sandbox card provider's saved cards as a method's test mode saves them (methods/sandbox.ts): a card token's
 * test card kept as a payment method, its outcome read at each payment, detached when the user removes it.
 */
export function sandboxSavedCards(repo: SandboxAcquirerRepository, clock: Clock) {
  return {
    async save(token: string): Promise<{ ref: string; brand: string; last4: string } | { failure: string }> {
      const tok = await repo.useToken(token, clock.now());
      if (!tok) return { failure: 'token_invalid' };
      if (tok.outcome !== 'ok') return { failure: tok.outcome };
      const ref = `pm_${randomToken(12)}`;
      await repo.insertPaymentMethod(ref, tok.id, clock.now());
      return { ref, brand: tok.brand, last4: tok.last4 };
    },
    outcome: async (ref: string) => (await repo.paymentMethodToken(ref))?.outcome,
    remove: (ref: string) => repo.detachPaymentMethod(ref, clock.now()),
  };
}
