// Which method adapters exist and which are switched on, per agent (docs/payments.md "Methods beyond the card").
// PAYMENT_METHODS (JSON) configures them: {"<agent>": {"<adapter id>": {<its configuration keys>}}}; the platform's
// agent is "powerly". With SANDBOX=on every adapter the platform has no configuration for runs in test mode
// (methods/sandbox.ts), so the demo offers them all, with the test mode of Stripe's types beyond the card
// (methods/stripe-types.ts); with SANDBOX=off only configured adapters run, and each must have its required keys
// (the server names what is missing and refuses to start).
import type { Clock } from '../../../lib/clock.ts';
import type { AdapterDefinition, MethodDefinition, SdkOrigins } from './adapter.ts';
import type { HttpLog } from './http.ts';
import { alipayDefinition } from './alipay.ts';
import { alifpayDefinition } from './alifpay.ts';
import { espeesDefinition } from './espees.ts';
import { mpesaDefinition } from './mpesa.ts';
import { n1coDefinition } from './n1co.ts';
import { paygateDefinition } from './paygate.ts';
import { paypalDefinition } from './paypal.ts';
import { sumupDefinition } from './sumup.ts';
import { wechatpayDefinition } from './wechatpay.ts';
import { flutterwaveDefinition } from './flutterwave.ts';
import { mercadopagoDefinition } from './mercadopago.ts';
import { monriDefinition } from './monri.ts';
import type { MethodProvider, CustomerStore } from './external.ts';
import type { ExternalRepository } from './repository.ts';
import { SandboxMethod, type SandboxMethodDeps } from './sandbox.ts';
import { DEBIT_CARD_TYPE } from '../provider.ts';
import { cardSealKey } from './card-seal.ts';
import { STRIPE_TEST_DEFINITIONS } from './stripe-types.ts';

/** Every method adapter of the product. */
export const DEFINITIONS: AdapterDefinition[] = [
  wechatpayDefinition,
  alipayDefinition,
  paypalDefinition,
  mpesaDefinition,
  flutterwaveDefinition,
  sumupDefinition,
  paygateDefinition,
  n1coDefinition,
  alifpayDefinition,
  espeesDefinition,
  mercadopagoDefinition,
  monriDefinition,
] as unknown as AdapterDefinition[];

export type MethodsConfig = Record<string, Record<string, Record<string, string>>>;

/**
 * Payment types of the agent's card provider (Stripe, or the sandbox in test mode) that an operator switches on in
 * PAYMENT_METHODS like a method, with no keys of their own: `{"powerly": {"debitcard": {}}}`.
 */
export const CARD_PROVIDER_TYPES = [DEBIT_CARD_TYPE];

/** Reads PAYMENT_METHODS (throws naming the fault on a malformed value). */
export function parseMethodsConfig(raw: string | undefined, definitions = DEFINITIONS): MethodsConfig {
  if (!raw?.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new Error('PAYMENT_METHODS must be JSON: {"<agent>": {"<method>": {…}}}');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new Error('PAYMENT_METHODS must be an object keyed by agent');
  for (const [agent, methods] of Object.entries(v as Record<string, unknown>)) {
    if (!methods || typeof methods !== 'object')
      throw new Error(`PAYMENT_METHODS.${agent} must be an object keyed by method`);
    for (const [id, cfg] of Object.entries(methods as Record<string, unknown>)) {
      if (!definitions.some((d) => d.id === id) && !CARD_PROVIDER_TYPES.includes(id)) {
        throw new Error(
          `PAYMENT_METHODS.${agent}: unknown method "${id}" (known: ${[...definitions.map((d) => d.id), ...CARD_PROVIDER_TYPES].join(', ')})`,
        );
      }
      if (!cfg || typeof cfg !== 'object' || Object.values(cfg).some((x) => typeof x !== 'string')) {
        throw new Error(`PAYMENT_METHODS.${agent}.${id} must be an object of strings`);
      }
    }
  }
  return v as MethodsConfig;
}

/** What a configuration lacks: one entry per method switched on without all its required keys. */
export function methodsGaps(config: MethodsConfig, definitions = DEFINITIONS): string[] {
  const gaps: string[] = [];
  for (const [agent, methods] of Object.entries(config)) {
    for (const [id, cfg] of Object.entries(methods)) {
      const def = definitions.find((d) => d.id === id);
      if (!def) continue; // a card provider type: nothing of its own to configure
      const missing = def.required.filter((k) => !cfg[k]);
      if (missing.length) gaps.push(`payment method ${id} of agent ${agent} (PAYMENT_METHODS: ${missing.join(', ')})`);
    }
  }
  return gaps;
}

/**
 * Whether switching on these methods needs this server's public address and it is missing: every method adapter's
 * provider sends the customer back and posts its notifications to us (PUBLIC_URL); a card provider type does not.
 * One rule for the start-up check (SANDBOX=off) and the console's save.
 */
export function needsPublicUrl(methods: string[], publicUrl: string | undefined, definitions = DEFINITIONS): boolean {
  return !publicUrl && methods.some((id) => definitions.some((d) => d.id === id));
}

/**
 * The browser origins of the client SDKs of the methods configured live (any agent): what the page's CSP adds to
 * 'self'. Test mode (the sandbox card form stands in for every SDK) adds nothing.
 */
export function methodsCsp(config: MethodsConfig, definitions = DEFINITIONS): SdkOrigins {
  const out = { script: new Set<string>(), frame: new Set<string>(), connect: new Set<string>() };
  for (const methods of Object.values(config)) {
    for (const [id, cfg] of Object.entries(methods)) {
      const o = definitions.find((d) => d.id === id)?.clientSdk?.(cfg);
      if (!o) continue;
      for (const k of ['script', 'frame', 'connect'] as const) o[k].forEach((x) => out[k].add(x));
    }
  }
  return { script: [...out.script], frame: [...out.frame], connect: [...out.connect] };
}

export interface MethodProvidersDeps {
  repo: ExternalRepository;
  clock: Clock;
  publicUrl: string;
  sandbox: boolean;
  platformAgent: string;
  cardOutcome: (token: string) => Promise<string | undefined>;
  sandboxCards?: SandboxMethodDeps['sandboxCards'];
  /** Our users' customers at each provider (payment_customers, owned by the payments module). */
  customers?: CustomerStore;
  fetch?: typeof fetch;
  /** Where the adapters' HTTP client logs each call (secrets redacted). */
  log?: HttpLog;
  definitions?: AdapterDefinition[];
}

/** The method providers per agent: configured methods, and in the sandbox the platform's test mode of the rest. */
export function methodProviders(config: MethodsConfig, d: MethodProvidersDeps): Map<string, MethodProvider[]> {
  const defs = d.definitions ?? DEFINITIONS;
  const out = new Map<string, MethodProvider[]>();
  const wire = {
    fetch: d.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a)),
    now: () => d.clock.now(),
    log: d.log,
  };
  const host = (instanceId: string, sandbox: boolean, cardKey?: Buffer) => ({
    instanceId,
    repo: d.repo,
    clock: d.clock,
    publicUrl: d.publicUrl,
    sandbox,
    cardKey,
    customers: d.customers,
  });
  const add = (agent: string, p: MethodProvider) => out.set(agent, [...(out.get(agent) ?? []), p]);
  for (const [agent, methods] of Object.entries(config)) {
    // An agent with a configuration of its own offers only its own methods (none of the platform's), even when
    // all it switched on is a card provider type.
    out.set(agent, out.get(agent) ?? []);
    for (const [id, cfg] of Object.entries(methods)) {
      const def = defs.find((x) => x.id === id);
      if (!def) continue;
      const instance = agent === d.platformAgent ? id : `${id}.${agent}`;
      add(agent, def.create(cfg, { ...wire, host: host(instance, false, cardSealKey(instance, def, cfg)) }));
    }
  }
  if (d.sandbox) {
    const sandboxOf = (def: MethodDefinition) => new SandboxMethod(def, d, { ...wire, host: host(def.id, true) });
    const configured = new Set(Object.keys(config[d.platformAgent] ?? {}));
    for (const def of defs.filter((x) => !configured.has(x.id))) add(d.platformAgent, sandboxOf(def));
    // The card provider's own wallets, iDEAL and WeChat Pay in test mode (offered only while it is the sandbox).
    for (const def of STRIPE_TEST_DEFINITIONS) add(d.platformAgent, sandboxOf(def));
  }
  return out;
}

/** The card provider types (`debitcard`) each configured agent switched on; an agent without a configuration has none here. */
export function cardTypes(config: MethodsConfig): Map<string, string[]> {
  return new Map(
    Object.entries(config).map(([agent, methods]) => [
      agent,
      Object.keys(methods).filter((id) => CARD_PROVIDER_TYPES.includes(id)),
    ]),
  );
}
