// The Wi-Fi line's catalogue and boxes as operators create them: regions with their countries, SKUs with a
// price per currency (minor units), boxes (serial, SSID, password) optionally put in a cabinet slot. The box
// deposit per currency is the 'mifi' price plan of a venue or an agent (modules/venues/plans.ts).
import { MifiBoxCreate, MifiRegionCreate, MifiSkuChange, MifiSkuCreate } from '#contract/ops-fleet.ts';
import type { Db } from '../../db/db.ts';
import { schemaProblems, type Problems } from '../../lib/validate.ts';
import { notFound } from '../../lib/errors.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import type { MifiCatalogueRepository, SkuEditable } from './catalogue-repository.ts';

/** A region's countries: each code once and not taken (`taken`), each time zone one the server knows. */
export function countryProblems(p: Problems, countries: { code: string; timeZone: string }[], taken: Set<string>) {
  countries.forEach((c, i) => {
    if (taken.has(c.code) || countries.findIndex((x) => x.code === c.code) !== i)
      p.add(`countries.${i}.code`, 'duplicate');
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: c.timeZone });
    } catch {
      p.add(`countries.${i}.timeZone`, 'invalid');
    }
  });
}

export interface MifiCatalogueDeps {
  db: Db;
  repo: MifiCatalogueRepository;
  /** Puts a device in a cabinet slot (the cabinets module's fleet service), validated there. */
  registerDevice(d: { id: string; kind: 'mifi'; cabinetId: string; slot: number }): Promise<void>;
}

export class MifiCatalogueAdmin {
  constructor(private readonly d: MifiCatalogueDeps) {}

  async createRegion(input: unknown): Promise<void> {
    const p = schemaProblems(MifiRegionCreate, input);
    p.throwIfAny();
    const r = input as MifiRegionCreate;
    const known = await this.d.repo.known(
      r.id,
      r.countries.map((c) => c.code),
    );
    countryProblems(p, r.countries, known.countries);
    if (known.region) p.add('id', 'duplicate');
    p.throwIfAny();
    await this.d.db.tx(() =>
      this.d.repo.insertRegion({ id: r.id, name: r.name, flagUrl: r.flagUrl, sort: r.sort ?? 0 }, r.countries),
    );
  }

  async createSku(input: unknown): Promise<void> {
    const p = schemaProblems(MifiSkuCreate, input);
    p.throwIfAny();
    const s = input as MifiSkuCreate;
    s.prices.forEach((x, i) => {
      if (s.prices.findIndex((y) => y.currency === x.currency) !== i) p.add(`prices.${i}.currency`, 'duplicate');
    });
    if (s.planKind === 'unlimited' ? s.planValue !== 0 : s.planValue < 1) p.add('planValue', 'invalid');
    const known = await this.d.repo.known(s.regionId, []);
    if (!known.region) p.add('regionId', 'notFound');
    else if (s.countryCode && (await this.d.repo.countryRegion(s.countryCode)) !== s.regionId)
      p.add('countryCode', 'notFound');
    p.throwIfAny();
    const ok = await this.d.db.tx(() => this.d.repo.insertSku(s, s.prices));
    if (!ok) p.add('id', 'duplicate').throwIfAny();
  }

  /**
   * Changes a SKU while it is still at `version` (409 otherwise, nothing saved): its names, plan, days, prices
   * (replaced whole) and whether it is on sale. Returns the SKU before and after, in the caller's unit of work.
   */
  async updateSku(id: string, version: number, input: unknown): Promise<{ before: SkuEditable; after: SkuEditable }> {
    const p = schemaProblems(MifiSkuChange, input);
    p.throwIfAny();
    const c = input as MifiSkuChange;
    const before = await this.d.repo.skuForUpdate(id);
    if (!before) throw notFound('ops.error.notFound');
    const after: SkuEditable = {
      ...before,
      name: c.name ?? before.name,
      names: c.names ?? before.names,
      plan_kind: c.planKind ?? before.plan_kind,
      plan_value: c.planValue ?? before.plan_value,
      is_package: c.isPackage ?? before.is_package,
      days: c.days ?? before.days,
      enabled: c.enabled ?? before.enabled,
      prices: c.prices ?? before.prices,
      version: before.version + 1,
    };
    c.prices?.forEach((x, i) => {
      if (c.prices!.findIndex((y) => y.currency === x.currency) !== i) p.add(`prices.${i}.currency`, 'duplicate');
    });
    if (after.plan_kind === 'unlimited' ? after.plan_value !== 0 : after.plan_value < 1) p.add('planValue', 'invalid');
    p.throwIfAny();
    if (before.version !== version || !(await this.d.repo.updateSku(id, version, after, c.prices)))
      throw staleVersion();
    return { before, after };
  }

  /** A box, in a cabinet slot when cabinetId and slot are given (both or neither). */
  async createBox(input: unknown): Promise<void> {
    const p = schemaProblems(MifiBoxCreate, input);
    p.throwIfAny();
    const b = input as MifiBoxCreate;
    if ((b.cabinetId === undefined) !== (b.slot === undefined))
      p.add(b.cabinetId === undefined ? 'cabinetId' : 'slot', 'required').throwIfAny();
    await this.d.db.tx(async () => {
      if (!(await this.d.repo.insertBox(b))) p.add('sn', 'duplicate').throwIfAny();
      if (b.cabinetId !== undefined)
        await this.d.registerDevice({ id: b.sn, kind: 'mifi', cabinetId: b.cabinetId, slot: b.slot! });
    });
  }
}
