// Capabilities are declared once per provider (card providers and method adapters alike, webhook included) and
// enforced by the registry: a call needing what a provider lacks is a 422 naming it, in the user's language, and
// the provider is never asked. Checked over every provider of the product.
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/lib/errors.ts';
import { t } from '../src/lib/i18n.ts';
import { DEFINITIONS, methodProviders } from '../src/modules/payments/methods/registry.ts';
import type { ExternalRepository } from '../src/modules/payments/methods/repository.ts';
import {
  lacks,
  NotSupported,
  ProviderRegistry,
  type Capabilities,
  type PaymentProvider,
} from '../src/modules/payments/provider.ts';
import { StripeCardProvider } from '../src/modules/payments/stripe.ts';
import { TestClock } from './helper.ts';
import type { PaymentsRepository } from '../src/modules/payments/repository.ts';

const KEYS: (keyof Capabilities)[] = ['hold', 'partialCapture', 'offSession', 'refund', 'payout', 'webhook'];

/** Every method in test mode, over a repository that fails any use: a call let through would not be a 422. */
function registry() {
  const untouchable = new Proxy(
    {},
    {
      get: () => {
        throw new Error('the provider was asked');
      },
    },
  ) as ExternalRepository;
  const reg = new ProviderRegistry();
  const byAgent = methodProviders(
    {},
    {
      repo: untouchable,
      clock: new TestClock(),
      publicUrl: '',
      sandbox: true,
      platformAgent: 'powerly',
      cardOutcome: async () => undefined,
    },
  );
  for (const p of byAgent.get('powerly') ?? []) reg.register(p);
  return reg;
}

async function refusal(p: Promise<unknown>): Promise<NotSupported> {
  try {
    await p;
  } catch (e) {
    return e as NotSupported;
  }
  throw new Error('expected a refusal');
}

describe('provider capabilities', () => {
  it('every provider declares all six flags (hold, partial capture, off-session, refund, payout, webhook)', () => {
    const stripe = new StripeCardProvider(
      'stripe',
      { secretKey: 'sk_test_x', publishableKey: 'pk_test_x', webhookSecret: 'whsec_x' },
      {} as PaymentsRepository,
    );
    for (const caps of [...DEFINITIONS.map((d) => d.capabilities), stripe.capabilities]) {
      expect(Object.keys(caps).sort()).toEqual([...KEYS].sort());
      for (const k of KEYS) expect(typeof caps[k]).toBe('boolean');
    }
  });

  it('a call needing a capability the provider lacks is a 422 naming it, before the provider is asked', async () => {
    const reg = registry();
    const calls: [keyof Capabilities, string, (p: PaymentProvider) => Promise<unknown>][] = [
      ['refund', 'refunds', (p) => p.refund('P1', 100)],
      [
        'payout',
        'payouts',
        (p) =>
          p.payout({
            amount: 100,
            currency: 'EUR',
            destination: { kind: 'channel', channel: 'x', account: {} },
            idempotencyKey: 'k',
          }),
      ],
      ['hold', 'capture', (p) => p.capture('P1', 100)],
      [
        'hold',
        'holds',
        (p) => p.authorize({ token: 't', amount: 100, currency: 'EUR', capture: 'manual', idempotencyKey: 'k' }),
      ],
    ];
    let refused = 0;
    for (const def of DEFINITIONS) {
      const p = reg.get(def.id);
      for (const [flag, capability, call] of calls) {
        if (def.capabilities[flag]) continue;
        const e = await refusal(call(p));
        expect(e, `${def.id} ${String(capability)}`).toBeInstanceOf(NotSupported);
        expect(e).toBeInstanceOf(AppError);
        expect([e.statusCode, e.capability]).toEqual([422, capability]);
        expect(t('pt-PT', `error.notSupported.${capability}`)).not.toBe(`error.notSupported.${capability}`);
        refused++;
      }
    }
    // Espees takes no refunds; most methods pay out nothing; M-Pesa, SumUp and others hold nothing.
    expect(refused).toBeGreaterThan(10);
  });

  it('reads each call against the flags in one place', () => {
    const none: Capabilities = {
      hold: false,
      partialCapture: false,
      offSession: false,
      refund: false,
      payout: false,
      webhook: false,
    };
    expect(lacks(none, 'refund')).toBe('refunds');
    expect(lacks(none, 'verifyEvent')).toBe('webhooks');
    expect(lacks(none, 'authorize', [{ capture: 'automatic' }])).toBeUndefined();
    expect(lacks(none, 'authorize', [{ capture: 'manual' }])).toBe('holds');
    expect(lacks({ ...none, refund: true }, 'refund')).toBeUndefined();
  });
});
