// The one registry of payment providers (provider.ts re-exports it): every provider by id, its money calls fenced by
// the running job's lease and checked against its capabilities, and per agent its card provider, methods and card
// types.
import { assertLease } from '../../jobs/runner.ts';
import { lacks, NotSupported, type PaymentProvider } from './provider.ts';
import type { MethodProvider } from './methods/external.ts';

/** The calls that move money: inside a job each is fenced (assertLease) so that a job taken over never makes one. */
const MONEY_CALLS = new Set<PropertyKey>(['authorize', 'capture', 'void', 'refund', 'payout']);

/** The provider as the services see it: its money calls check the running job's lease first (jobs/runner.ts). */
function fenced(p: PaymentProvider): PaymentProvider {
  return new Proxy(p, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (!MONEY_CALLS.has(prop)) return fn.bind(target);
      return async (...a: unknown[]) => {
        const missing = lacks(target.capabilities, prop, a);
        if (missing) throw new NotSupported(target.id, missing);
        await assertLease();
        return fn.apply(target, a);
      };
    },
  });
}

/**
 * Every payment provider of the installation by id (card providers and methods, each agent's own accounts too, and
 * the methods switched off, whose payments still resume, refund and take their notifications), and per agent what it
 * offers: its card provider, its methods and the card provider's extra types it switched on. An agent with nothing of
 * its own here has the platform's. Console saves (payments/settings/live.ts) write straight into it.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, PaymentProvider>();
  private readonly cards = new Map<string, string>();
  private readonly offered = new Map<string, { methods: string[]; cardTypes: string[] }>();

  constructor(readonly platform = 'powerly') {}

  register(p: PaymentProvider) {
    this.providers.set(p.id, fenced(p));
    return this;
  }
  get(id: string): PaymentProvider {
    const p = this.providers.get(id);
    if (!p) throw new Error(`payment provider not registered: ${id}`);
    return p;
  }
  has(id: string) {
    return this.providers.has(id);
  }
  all(): PaymentProvider[] {
    return [...this.providers.values()];
  }

  /** The agent's card provider (a registered one: the platform's, or the agent's own account). */
  setCardProvider(agent: string, id: string) {
    this.cards.set(agent, id);
    return this;
  }
  /** Whether the agent has a card provider account of its own. */
  hasOwnCardProvider(agent: string) {
    return this.cards.has(agent);
  }
  /** The card provider of an agent: its own, else the platform's; null when none is registered. */
  cardProviderOf(agent: string): PaymentProvider | null {
    const id = this.cards.get(agent) ?? this.cards.get(this.platform);
    return id && this.providers.has(id) ? this.get(id) : null;
  }

  /** What each agent offers now (methods by provider id, each registered), replacing what was offered before. */
  setOffered(byAgent: Map<string, { methods: PaymentProvider[]; cardTypes: string[] }>) {
    for (const { methods } of byAgent.values()) for (const p of methods) if (!this.has(p.id)) this.register(p);
    this.offered.clear();
    for (const [agent, o] of byAgent)
      this.offered.set(agent, { methods: o.methods.map((p) => p.id), cardTypes: o.cardTypes });
  }
  /** Whether the agent has a method configuration of its own (else it offers the platform's). */
  hasOwnMethods(agent: string) {
    return this.offered.has(agent);
  }
  /** The methods the agent offers: its own, else the platform's. */
  methodsOf(agent: string): MethodProvider[] {
    const o = this.offered.get(agent) ?? this.offered.get(this.platform);
    return (o?.methods ?? []).filter((id) => this.has(id)).map((id) => this.get(id) as MethodProvider);
  }
  /** The card provider's extra types the agent switched on (`debitcard`): its own, else the platform's. */
  cardTypesOf(agent: string): string[] {
    return (this.offered.get(agent) ?? this.offered.get(this.platform))?.cardTypes ?? [];
  }
  /** Every registered method provider (offered or switched off). */
  allMethods(): MethodProvider[] {
    return this.all().filter((p): p is MethodProvider => 'definition' in p);
  }
}
