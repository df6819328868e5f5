// The method providers each agent offers now: PAYMENT_METHODS (the bootstrap) with the console's settings laid over
// it (docs/payments.md "Switching on a method for an agent"), written straight into the provider registry (what each
// agent offers, provider.ts ProviderRegistry), which the payments service reads on every request; so a setting saved
// in the console is offered without a restart: at once in the process that saved it, and in every other API process within `ttlMs` (each request
// checks, at most once per `ttlMs`, whether the table's stamp moved). A provider is rebuilt only when its
// configuration changed; one switched off stays registered under its id (never offered), so the payments already
// made with it still resume, refund and take their webhooks.
import type { Clock } from '../../../lib/clock.ts';
import type { ProviderRegistry } from '../provider.ts';
import type { MethodProvider } from '../methods/external.ts';
import type { SdkOrigins } from '../methods/adapter.ts';
import {
  cardTypes,
  DEFINITIONS,
  methodProviders,
  methodsCsp,
  type MethodProvidersDeps,
  type MethodsConfig,
} from '../methods/registry.ts';
import type { Queryable } from '../../../db/db.ts';
import { PaymentSettingsRepository, type SettingsRow } from './repository.ts';
import { openValue, paymentSettingsKey, type SettingsKey } from './seal.ts';

export interface LiveMethodsDeps {
  /** PAYMENT_METHODS, parsed. */
  env: MethodsConfig;
  repo: PaymentSettingsRepository;
  key: SettingsKey;
  providers: ProviderRegistry;
  build: MethodProvidersDeps;
  clock: Clock;
  /** How long another process's save may take to be seen here (default 5 s). */
  ttlMs?: number;
  /** Told of each provider newly built (services.ts wires the wallet's saved cards to it). */
  onProvider?: (agent: string, p: MethodProvider) => void;
  warn?: (msg: string) => void;
}

/** Console settings opened: agent → method → { enabled, keys }. */
export type OpenedSettings = Map<
  string,
  Map<string, { enabled: boolean; keys: Record<string, string>; row: SettingsRow }>
>;

export class LiveMethods {
  private onProvider?: (agent: string, p: MethodProvider) => void;
  private readonly built = new Map<string, { agent: string; p: MethodProvider }>();
  private readonly registered = new Map<string, MethodProvider>();
  private sandboxOnes?: MethodProvider[];
  private stamp = '';
  private checkedAt = -Infinity;
  private checking?: Promise<void>;
  private current: MethodsConfig = {};
  private cspOf?: { config: MethodsConfig; origins: SdkOrigins };

  constructor(private readonly d: LiveMethodsDeps) {
    this.onProvider = d.onProvider;
  }

  /** PAYMENT_METHODS as the installation gave it. */
  get env(): MethodsConfig {
    return this.d.env;
  }

  get repo(): PaymentSettingsRepository {
    return this.d.repo;
  }

  /** The key sealing the console's values (undefined: none configured, values cannot be saved). */
  key(): Promise<Buffer | undefined> {
    return this.d.key();
  }

  /** The registry these settings are written into. */
  get providers(): ProviderRegistry {
    return this.d.providers;
  }

  /** Whether the methods run in test mode where not configured (SANDBOX=on). */
  get sandbox(): boolean {
    return this.d.build.sandbox;
  }

  /** Where providers reach this server (PUBLIC_URL; '' when unset). */
  get publicUrl(): string {
    return this.d.build.publicUrl;
  }

  /** Calls `fn` for every provider built so far and every one built later (each agent's, switched on or off). */
  watch(fn: (agent: string, p: MethodProvider) => void) {
    this.onProvider = fn;
    for (const { agent, p } of this.built.values()) fn(agent, p);
  }

  /** The configuration offered now (enabled methods with their keys), the environment's and the console's together. */
  get config(): MethodsConfig {
    return this.current;
  }

  /** The client SDK origins of the methods offered now (the page policy's extra): the same object until they change. */
  get csp(): SdkOrigins {
    if (this.cspOf?.config !== this.current) this.cspOf = { config: this.current, origins: methodsCsp(this.current) };
    return this.cspOf.origins;
  }

  /** The console's settings, opened (a value that does not open is left out and reported). */
  async opened(rows?: SettingsRow[]): Promise<OpenedSettings> {
    const all = rows ?? (await this.d.repo.all());
    const key = all.some((r) => Object.keys(r.sealed_keys).length) ? await this.d.key() : undefined;
    const out: OpenedSettings = new Map();
    for (const r of all) {
      const keys: Record<string, string> = {};
      for (const [name, sealed] of Object.entries(r.sealed_keys)) {
        try {
          if (!key) throw new Error('PAYMENT_SETTINGS_KEY is not set');
          keys[name] = openValue(key, r.agent_id, r.method, name, sealed);
        } catch (err) {
          this.d.warn?.(`payment setting ${r.agent_id}/${r.method}.${name} does not open: ${(err as Error).message}`);
        }
      }
      if (!out.has(r.agent_id)) out.set(r.agent_id, new Map());
      out.get(r.agent_id)!.set(r.method, { enabled: r.enabled, keys, row: r });
    }
    return out;
  }

  /** Reads the settings again and rebuilds what changed. */
  async reload(): Promise<void> {
    const stamp = await this.d.repo.stamp();
    const opened = await this.opened();
    const { offered, kept } = merge(this.d.env, opened);
    const next = new Map<string, MethodProvider[]>();
    const make = (agent: string, id: string, cfg: Record<string, string>) => {
      const k = `${agent}\0${id}\0${JSON.stringify(Object.entries(cfg).sort())}`;
      let p = this.built.get(k)?.p;
      if (!p) {
        p = methodProviders({ [agent]: { [id]: cfg } }, { ...this.d.build, sandbox: false }).get(agent)![0]!;
        this.built.set(k, { agent, p });
        this.onProvider?.(agent, p);
      }
      return p;
    };
    const register = (p: MethodProvider) => {
      if (this.registered.get(p.id) === p) return;
      this.d.providers.register(p);
      this.registered.set(p.id, p);
    };
    for (const [agent, methods] of Object.entries(kept)) {
      for (const [id, cfg] of Object.entries(methods))
        if (DEFINITIONS.some((x) => x.id === id) && complete(id, cfg)) register(make(agent, id, cfg));
    }
    for (const [agent, methods] of Object.entries(offered)) {
      next.set(agent, []);
      for (const [id, cfg] of Object.entries(methods)) {
        if (!DEFINITIONS.some((x) => x.id === id)) continue; // a card provider type
        if (!complete(id, cfg)) {
          this.d.warn?.(`payment method ${id} of agent ${agent} lacks required keys: not offered`);
          continue;
        }
        const p = make(agent, id, cfg);
        register(p);
        next.get(agent)!.push(p);
      }
    }
    if (this.d.build.sandbox) {
      // Test mode: the platform's adapters with no configuration of their own run as their sandbox (made once).
      if (!this.sandboxOnes) {
        this.sandboxOnes = methodProviders({}, this.d.build).get(this.d.build.platformAgent) ?? [];
        for (const p of this.sandboxOnes) {
          this.built.set(`sandbox\0${p.id}`, { agent: this.d.build.platformAgent, p });
          this.onProvider?.(this.d.build.platformAgent, p);
        }
      }
      const configured = new Set(Object.keys(offered[this.d.build.platformAgent] ?? {}));
      for (const p of this.sandboxOnes.filter((x) => !configured.has(x.id))) {
        register(p);
        next.set(this.d.build.platformAgent, [...(next.get(this.d.build.platformAgent) ?? []), p]);
      }
    }
    const types = cardTypes(offered);
    const agents = new Set([...next.keys(), ...types.keys()]);
    this.d.providers.setOffered(
      new Map([...agents].map((a) => [a, { methods: next.get(a) ?? [], cardTypes: types.get(a) ?? [] }])),
    );
    this.current = offered;
    this.stamp = stamp;
    this.checkedAt = this.d.clock.now().getTime();
  }

  /** Reloads when another process saved since the last look (checked at most once per ttl); cheap otherwise. */
  async fresh(): Promise<void> {
    const now = this.d.clock.now().getTime();
    if (now - this.checkedAt < (this.d.ttlMs ?? 5_000)) return;
    this.checking ??= (async () => {
      try {
        if ((await this.d.repo.stamp()) !== this.stamp) await this.reload();
        else this.checkedAt = now;
      } catch (err) {
        // A database hiccup never fails the request: the methods as last read stay, the next request after ttl tries again.
        this.checkedAt = now;
        this.d.warn?.(`payment settings not reloaded: ${(err as Error).message}`);
      } finally {
        this.checking = undefined;
      }
    })();
    await this.checking;
  }
}

function complete(id: string, cfg: Record<string, string>): boolean {
  const def = DEFINITIONS.find((x) => x.id === id);
  return !def || def.required.every((k) => !!cfg[k]);
}

/**
 * The configuration offered (enabled methods) and the one kept registered (switched off in the console, with
 * keys: their payments still resume): the environment's, each agent and method with a console row replaced by it
 * (its keys over the environment's). An agent with any console row has a configuration of its own (so it offers
 * its own methods only, as an agent of PAYMENT_METHODS does).
 */
export function merge(env: MethodsConfig, opened: OpenedSettings): { offered: MethodsConfig; kept: MethodsConfig } {
  const offered: MethodsConfig = Object.fromEntries(Object.entries(env).map(([a, m]) => [a, { ...m }]));
  const kept: MethodsConfig = {};
  for (const [agent, methods] of opened) {
    offered[agent] ??= {};
    for (const [id, s] of methods) {
      const cfg = { ...(env[agent]?.[id] ?? {}), ...s.keys };
      if (s.enabled) offered[agent][id] = cfg;
      else {
        delete offered[agent][id];
        if (Object.keys(cfg).length) (kept[agent] ??= {})[id] = cfg;
      }
    }
  }
  return { offered, kept };
}

/**
 * The live methods of an installation, loaded once before the first request; `settingsKey`: PAYMENT_SETTINGS_KEY
 * (the sandbox generates its own).
 */
export async function liveMethods(
  o: Omit<LiveMethodsDeps, 'repo' | 'key'> & { db: Queryable; settingsKey?: string },
): Promise<LiveMethods> {
  const live = new LiveMethods({
    ...o,
    repo: new PaymentSettingsRepository(o.db),
    key: paymentSettingsKey({ given: o.settingsKey, db: o.db, clock: o.clock, sandbox: o.build.sandbox }),
  });
  await live.reload();
  return live;
}
