// Each agent's payment methods as operators set them in the console (docs/payments.md "Switching on a method for
// an agent"): the list with each key's state (never its value), and saves with optimistic concurrency, checked
// against the adapter's definition, audited without values, sealed at rest, and offered at once (live.ts).
import type { Db } from '../../../db/db.ts';
import type { Clock } from '../../../lib/clock.ts';
import { badRequest, conflict, notFound, refused } from '../../../lib/errors.ts';
import { staleVersion } from '../../../lib/ops-concurrency.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { PaymentMethodSave, PaymentMethodSetting, PaymentSettings } from '#contract/ops/payment-settings.ts';
import type { Actor, AuditService } from '../../audit/service.ts';
import { CARD_PROVIDER_TYPES, DEFINITIONS, needsPublicUrl } from '../methods/registry.ts';
import type { LiveMethods } from './live.ts';
import type { SettingsRow } from './repository.ts';
import { sealValue } from './seal.ts';

export interface PaymentSettingsDeps {
  db: Db;
  clock: Clock;
  live: LiveMethods;
  audit: AuditService;
  platformAgent: string;
  /** Whether an agent exists (the embed module's agents). */
  agentExists: (id: string) => Promise<boolean>;
}

/** A method an operator can switch on: an adapter, or a card provider type (no keys of its own). */
interface Known {
  id: string;
  labels: string[];
  currencies?: string[];
  required: string[];
  optional: string[];
}

const KNOWN: Known[] = [
  ...DEFINITIONS.map((d) => ({
    id: d.id,
    labels: d.payTypes.map((t) => t.label),
    currencies: d.currencies,
    required: d.required,
    optional: d.optional ?? [],
  })),
  ...CARD_PROVIDER_TYPES.map((id) => ({ id, labels: ['Debit card'], required: [], optional: [] })),
];

export class PaymentSettingsService {
  constructor(private readonly d: PaymentSettingsDeps) {}

  /** Every method of the agent with its state; 404 outside the caller's scope or for an unknown agent. */
  async list(scope: Scope, agentId: string): Promise<PaymentSettings> {
    await this.agent(scope, agentId);
    const rows = await this.d.live.repo.ofAgent(agentId);
    const canSeal = (await this.d.live.key()) !== undefined;
    const own = rows.length > 0 || this.d.live.env[agentId] !== undefined;
    return {
      agentId,
      own,
      canSeal,
      items: KNOWN.map((k) =>
        this.shape(
          agentId,
          k,
          rows.find((r) => r.method === k.id),
        ),
      ),
    };
  }

  async one(scope: Scope, agentId: string, method: string): Promise<PaymentMethodSetting> {
    await this.agent(scope, agentId);
    const k = known(method);
    return this.shape(
      agentId,
      k,
      (await this.d.live.repo.ofAgent(agentId)).find((r) => r.method === method),
    );
  }

  /**
   * Switches a method on or off and writes its keys (a value sets or rotates, null clears), over the version read
   * (0: nothing saved yet). A method switched on must have every required key, here or in PAYMENT_METHODS (400
   * naming the missing ones); a key the adapter does not take is a 400 naming it; with SANDBOX=off and no PUBLIC_URL,
   * a method the provider must call back is refused (422), by the start-up check's rule (needsPublicUrl).
   */
  async save(
    scope: Scope,
    actor: Actor,
    agentId: string,
    method: string,
    version: number,
    input: PaymentMethodSave,
  ): Promise<PaymentMethodSetting> {
    await this.agent(scope, agentId);
    const k = known(method);
    const given = Object.entries(input.keys ?? {});
    const unknown = given.map(([n]) => n).filter((n) => !k.required.includes(n) && !k.optional.includes(n));
    if (unknown.length) throw badRequest('ops.error.paymentKeyUnknown', { key: unknown.join(', '), method });
    // Live, a method whose provider calls this server back cannot work without its public address (as at start-up).
    if (input.enabled && !this.d.live.sandbox && needsPublicUrl([method], this.d.live.publicUrl))
      throw refused('ops.error.paymentPublicUrl', { method });
    const writes = given.filter(([, v]) => v != null && v.trim() !== '');
    const key = writes.length ? await this.d.live.key() : undefined;
    if (writes.length && !key) throw conflict('ops.error.paymentSettingsKey');
    const saved = await this.d.db.tx(async () => {
      const row = await this.d.live.repo.one(agentId, method);
      if ((row?.version ?? 0) !== version) throw staleVersion();
      const sealed = { ...(row?.sealed_keys ?? {}) };
      for (const [name, value] of given) {
        if (value == null || value.trim() === '') delete sealed[name];
        else sealed[name] = sealValue(key!, agentId, method, name, value.trim());
      }
      const env = this.d.live.env[agentId]?.[method] ?? {};
      if (input.enabled) {
        const missing = k.required.filter((n) => !sealed[n] && !env[n]);
        if (missing.length) throw badRequest('ops.error.paymentKeyMissing', { key: missing.join(', '), method });
      }
      const values = {
        agentId,
        method,
        enabled: input.enabled,
        sealedKeys: sealed,
        at: this.d.clock.now(),
        by: actor.staffId,
      };
      const next = row ? await this.d.live.repo.update({ ...values, version }) : await this.d.live.repo.insert(values);
      if (!next) throw staleVersion();
      // The audit entry names which keys were written or cleared, never a value (sealed or not).
      await this.d.audit.record(actor, {
        action: 'payments.method',
        entity: 'payment_method',
        entityId: `${agentId}/${method}`,
        agentId: agentId === this.d.platformAgent ? null : agentId,
        before: row ? { enabled: row.enabled, keysSet: Object.keys(row.sealed_keys).sort() } : null,
        after: {
          enabled: next.enabled,
          keysSet: Object.keys(next.sealed_keys).sort(),
          keysWritten: writes.map(([n]) => n).sort(),
          keysCleared: given
            .filter(([, v]) => v == null || v.trim() === '')
            .map(([n]) => n)
            .sort(),
        },
      });
      return next;
    });
    // Offered (or withdrawn) from the next request on, in this process at once (others within the live cache's ttl).
    await this.d.live.reload();
    return this.shape(agentId, k, saved);
  }

  private async agent(scope: Scope, agentId: string) {
    const exists =
      agentId === this.d.platformAgent
        ? scope.kind === 'all'
        : inScope(scope, agentId) && (await this.d.agentExists(agentId));
    if (!exists) throw notFound('ops.error.notFound');
  }

  private shape(agentId: string, k: Known, row: SettingsRow | undefined): PaymentMethodSetting {
    const env = this.d.live.env[agentId]?.[k.id];
    const offered = this.d.live.config[agentId]?.[k.id] !== undefined;
    const reg = this.d.live.providers;
    const testMode =
      !offered &&
      reg.hasOwnMethods(agentId) &&
      reg.methodsOf(agentId).some((p) => p.sandbox && p.definition.id === k.id);
    return {
      method: k.id,
      labels: k.labels,
      ...(k.currencies ? { currencies: k.currencies } : {}),
      enabled: (row ? row.enabled && offered : offered) || testMode,
      ...(testMode ? { testMode } : {}),
      source: row ? 'console' : env ? 'environment' : 'none',
      keys: [
        ...k.required.map((name) => ({ name, required: true })),
        ...k.optional.map((name) => ({ name, required: false })),
      ].map((x) => ({
        ...x,
        state: row?.sealed_keys[x.name]
          ? ('console' as const)
          : env?.[x.name]
            ? ('environment' as const)
            : ('unset' as const),
      })),
      version: row?.version ?? 0,
      ...(row ? { updatedAt: new Date(row.updated_at).toISOString() } : {}),
    };
  }
}

function known(method: string): Known {
  const k = KNOWN.find((x) => x.id === method);
  if (!k) throw notFound('ops.error.paymentMethod', { method });
  return k;
}
