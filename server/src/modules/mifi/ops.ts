// The Wi-Fi line in the back office: the catalogue (regions, packages and plans with a price per currency) is the
// platform's, so only a platform-wide member changes it; boxes are in scope by the cabinet they sit in. Creation is
// the fleet's catalogue service (catalogue-admin.ts); this adds the lists, the scope, the audit log with the reason,
// the operator's password rotation (rotation.ts: the same durable path as a box's return), and the box deposit
// per currency (the platform's, as the catalogue).
import type {
  BoxDepositShape,
  MifiSkuChangeBody,
  MifiBoxBody,
  MifiBoxListQuery,
  MifiBoxShape,
  MifiRegionBody,
  MifiRegionChangeBody,
  MifiRegionShape,
  MifiSkuBody,
  MifiSkuListQuery,
  MifiSkuShape,
} from '#contract/ops/mifi.ts';
import type { Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import { Problems } from '../../lib/validate.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { scopeParams } from '../../lib/ops-query.ts';
import { countryProblems, type MifiCatalogueAdmin } from './catalogue-admin.ts';
import type { BoxDepositRow, BoxOpsRow, MifiOpsRepository } from './ops-repository.ts';
import type { MifiCatalogueRepository } from './catalogue-repository.ts';
import type { MifiService } from './service.ts';

const TEXT_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface MifiOpsDeps {
  db: Db;
  clock: Clock;
  repo: MifiOpsRepository;
  mifi: MifiCatalogueRepository;
  catalogue: MifiCatalogueAdmin;
  service: MifiService;
  audit: AuditService;
}

export class MifiOpsService {
  constructor(private readonly d: MifiOpsDeps) {}

  async regions(): Promise<{ items: MifiRegionShape[] }> {
    const rows = await this.d.mifi.regions();
    const versions = await this.d.repo.regionVersions();
    return {
      items: rows.map((r) => ({
        id: r.id,
        name: r.name,
        flagUrl: r.flag_url,
        countries: r.countries.map((c) => ({
          code: c.code.trim(),
          name: c.name,
          timeZone: c.time_zone,
          flagUrl: c.flag_url,
        })),
        version: versions.get(r.id) ?? 1,
      })),
    };
  }

  /**
   * Changes a region's name and countries (replaced whole) while it is at `version` (409 otherwise, nothing saved):
   * a country of another region is refused, as is dropping one a package is sold for (409). Packages bought keep
   * the country and time zone they were bought with.
   */
  async updateRegion(
    scope: Scope,
    actor: Actor,
    id: string,
    version: number,
    body: MifiRegionChangeBody,
  ): Promise<MifiRegionShape> {
    platformOnly(scope);
    const { reason: _r, ...change } = body;
    const countries = change.countries.map((c) => ({ ...c, code: c.code.toUpperCase() }));
    return this.d.db.tx(async () => {
      const before = (await this.regions()).items.find((r) => r.id === id);
      if (!before || (await this.d.repo.regionVersion(id)) === undefined) throw notFound('ops.error.notFound');
      const use = await this.d.repo.countryUse(
        id,
        countries.map((c) => c.code),
      );
      const p = new Problems();
      countryProblems(p, countries, use.elsewhere);
      p.throwIfAny();
      const gone = [...use.sold].find((code) => !countries.some((c) => c.code === code));
      if (gone) throw conflict('ops.error.countryInUse', { country: gone });
      if (before.version !== version || !(await this.d.repo.updateRegion(id, version, change.name, countries)))
        throw staleVersion();
      const after = (await this.regions()).items.find((r) => r.id === id)!;
      await this.d.audit.record(actor, {
        action: 'mifi.region-update',
        entity: 'mifi-region',
        entityId: id,
        before,
        after,
      });
      return after;
    });
  }

  async createRegion(scope: Scope, actor: Actor, body: MifiRegionBody) {
    platformOnly(scope);
    const { reason: _r, ...region } = body;
    await this.d.db.tx(async () => {
      await this.d.catalogue.createRegion(region);
      await this.d.audit.record(actor, {
        action: 'mifi.region-create',
        entity: 'mifi-region',
        entityId: region.id,
        after: region,
      });
    });
    return (await this.regions()).items.find((r) => r.id === region.id)!;
  }

  async skus(q: MifiSkuListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.skus({
      regionId: q.regionId,
      q: q.q,
      sort: q.sort,
      after: decodeCursor(q.cursor, TEXT_ID),
      limit: limit + 1,
    });
    return pageOf(
      rows,
      limit,
      (r) => [r.sort_key, r.id],
      (r): MifiSkuShape => ({
        id: r.id,
        regionId: r.region_id,
        countryCode: r.country_code,
        name: r.name,
        planKind: r.plan_kind,
        planValue: r.plan_value,
        isPackage: r.is_package,
        days: r.days,
        prices: typeof r.prices === 'string' ? (JSON.parse(r.prices) as MifiSkuShape['prices']) : r.prices,
        names: typeof r.names === 'string' ? (JSON.parse(r.names) as Record<string, string>) : r.names,
        enabled: r.enabled,
        version: r.version,
      }),
    );
  }

  async createSku(scope: Scope, actor: Actor, body: MifiSkuBody): Promise<MifiSkuShape> {
    platformOnly(scope);
    const { reason: _r, ...sku } = body;
    await this.d.db.tx(async () => {
      await this.d.catalogue.createSku(sku);
      await this.d.audit.record(actor, { action: 'mifi.sku-create', entity: 'mifi-sku', entityId: sku.id, after: sku });
    });
    return this.sku(sku.id);
  }

  /** Changes a package or plan (names, plan, days, prices, on sale or not) at the version read; audited. */
  async updateSku(
    scope: Scope,
    actor: Actor,
    id: string,
    version: number,
    body: MifiSkuChangeBody,
  ): Promise<MifiSkuShape> {
    platformOnly(scope);
    const { reason: _r, ...change } = body;
    await this.d.db.tx(async () => {
      const { before, after } = await this.d.catalogue.updateSku(id, version, change);
      const shown = (x: typeof before) => ({
        name: x.name,
        names: x.names,
        planKind: x.plan_kind,
        planValue: x.plan_value,
        isPackage: x.is_package,
        days: x.days,
        enabled: x.enabled,
        prices: x.prices,
      });
      await this.d.audit.record(actor, {
        action: 'mifi.sku-update',
        entity: 'mifi-sku',
        entityId: id,
        before: shown(before),
        after: shown(after),
      });
    });
    return this.sku(id);
  }

  private async sku(id: string): Promise<MifiSkuShape> {
    const s = (await this.skus({ q: id, limit: 200 })).items.find((x) => x.id === id);
    if (!s) throw notFound('ops.error.notFound');
    return s;
  }

  async boxDeposits(): Promise<{ items: BoxDepositShape[] }> {
    return { items: (await this.d.repo.boxDeposits()).map(deposit) };
  }

  /**
   * Sets the box deposit of a currency (any ISO 4217 currency): a new one without a version, else only while it is
   * still at the version read (409 otherwise: nothing is overwritten). Audited with before and after.
   */
  async setBoxDeposit(
    scope: Scope,
    actor: Actor,
    currency: string,
    version: number | null,
    amount: number,
  ): Promise<BoxDepositShape> {
    platformOnly(scope);
    if (!Intl.supportedValuesOf('currency').includes(currency)) new Problems().add('currency', 'currency').throwIfAny();
    return this.d.db.tx(async () => {
      const before = (await this.d.repo.boxDeposits()).find((r) => r.currency === currency);
      if (!(await this.d.repo.setBoxDeposit(currency, amount, version, this.d.clock.now()))) throw staleVersion();
      const after = (await this.d.repo.boxDeposits()).find((r) => r.currency === currency)!;
      await this.d.audit.record(actor, {
        action: 'mifi.box-deposit-set',
        entity: 'mifi-box-deposit',
        entityId: currency,
        ...(before ? { before: { amount: before.amount } } : {}),
        after: { amount: after.amount },
      });
      return deposit(after);
    });
  }

  async boxes(scope: Scope, q: MifiBoxListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.boxes({
      scope: scopeParams(scope),
      q: q.q,
      cabinetId: q.cabinetId,
      sort: q.sort,
      after: decodeCursor(q.cursor, TEXT_ID),
      limit: limit + 1,
    });
    return pageOf(rows, limit, (r) => [r.sort_key, r.sn], box);
  }

  async box(scope: Scope, sn: string): Promise<MifiBoxShape & { agentId: string | null }> {
    const [r] = await this.d.repo.boxes({ scope: scopeParams(scope), sn, limit: 1 });
    if (!r) throw notFound('ops.error.notFound');
    return { ...box(r), agentId: r.agent_id };
  }

  /** A box, put in a cabinet slot when one is named (a cabinet outside the scope: not found). */
  async createBox(scope: Scope, actor: Actor, body: MifiBoxBody): Promise<MifiBoxShape> {
    const { reason: _r, password: _p, ...shown } = body;
    if (body.cabinetId === undefined) platformOnly(scope);
    return this.d.db.tx(async () => {
      if (body.cabinetId !== undefined && !(await this.cabinetInScope(scope, body.cabinetId)))
        throw notFound('ops.error.notFound');
      const { reason: _reason, ...create } = body;
      await this.d.catalogue.createBox(create);
      const after = await this.box(scope, body.sn);
      await this.d.audit.record(actor, {
        action: 'mifi.box-create',
        entity: 'mifi-box',
        entityId: body.sn,
        agentId: after.agentId,
        after: shown,
      });
      return after;
    });
  }

  /** A new Wi-Fi password for a box in a cabinet: pending until the box confirms it (the holder sees none meanwhile). */
  async rotatePassword(scope: Scope, actor: Actor, sn: string): Promise<MifiBoxShape> {
    return this.d.db.tx(async () => {
      const before = await this.box(scope, sn);
      if (!before.cabinetId) throw conflict('ops.error.boxNotInCabinet', { sn });
      await this.d.service.rotatePassword(sn);
      const after = await this.box(scope, sn);
      await this.d.audit.record(actor, {
        action: 'mifi.box-password-rotate',
        entity: 'mifi-box',
        entityId: sn,
        agentId: after.agentId,
        before: { password: before.password },
        after: { password: after.password },
      });
      return after;
    });
  }

  private async cabinetInScope(scope: Scope, cabinetId: string): Promise<boolean> {
    if (scope.kind === 'all') return true;
    const c = await this.d.repo.cabinet(cabinetId);
    if (!c) return true; // the catalogue service names the missing cabinet
    const p = scopeParams(scope);
    return (!!c.agent_id && !!p.agents?.includes(c.agent_id)) || p.pairs.includes(`${c.agent_id}/${c.venue_id}`);
  }
}

/** The catalogue is the platform's: only a platform-wide member changes it. */
function platformOnly(scope: Scope) {
  if (scope.kind !== 'all') throw new AppError(403, 'ops.error.platformOnly');
}

function deposit(r: BoxDepositRow): BoxDepositShape {
  return {
    currency: r.currency,
    amount: r.amount,
    version: r.version,
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

function box(r: BoxOpsRow): MifiBoxShape {
  return {
    sn: r.sn,
    ssid: r.ssid,
    cabinetId: r.cabinet_id,
    slot: r.slot,
    state: r.state,
    password: r.pending ? 'rotating' : 'set',
    passwordChangedAt: r.password_changed_at ? new Date(r.password_changed_at).toISOString() : null,
  };
}
