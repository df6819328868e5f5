// The Wi-Fi catalogue: the query proxy (regions, the package page, a SKU's variants) and the box deposit per currency.
import { packageName } from '#core/mifi.ts';
import { toMajor } from '#core/money.ts';
import { badRequest } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import { currencySymbol } from '../venues/service.ts';
import type { PackagePageData } from '#contract/mifi.ts';
import type { SkuRow } from './catalogue-repository.ts';
import { MifiPart } from './shared.ts';

export class MifiCatalogue extends MifiPart {
  /** `locale`: the rider's language, for a package's name in it. */
  async proxy(user: UserRow, url: string, raw: string | undefined, locale?: string): Promise<string> {
    let data: Record<string, unknown> = {};
    if (raw) {
      try {
        const v: unknown = JSON.parse(raw);
        if (v && typeof v === 'object' && !Array.isArray(v)) data = v as Record<string, unknown>;
        else throw new Error('not an object');
      } catch {
        throw badRequest('error.validation.field', { field: 'data' });
      }
    }
    const s = (k: string, max: number) => (typeof data[k] === 'string' ? (data[k] as string).slice(0, max) : undefined);
    const n = (k: string, d: number, max: number) =>
      Number.isInteger(Number(data[k])) && Number(data[k]) >= 1 ? Math.min(Number(data[k]), max) : d;
    const currency = (s('currency', 3) ?? user.currency ?? 'USD').toUpperCase();
    if (url === 'regionList') {
      return JSON.stringify(
        (await this.d.catalogueRepo.regions()).map((r) => ({
          id: r.id,
          name: r.name,
          flagUrl: r.flag_url,
          countries: r.countries.map((c) => ({
            code: c.code,
            name: c.name,
            flagUrl: c.flag_url,
            timeZone: c.time_zone,
          })),
        })),
      );
    }
    if (url === 'packagePage') {
      const p: PackagePageData = {
        size: n('size', 6, 50),
        current: n('current', 1, 10_000),
        searchKeywords: s('searchKeywords', 100),
        country: s('country', 2),
        region: s('region', 64),
      };
      const size = p.size!;
      const { rows, total } = await this.d.catalogueRepo.skus({
        currency,
        q: (p.searchKeywords ?? '').trim(),
        country: p.country?.toUpperCase(),
        region: p.region,
        limit: size,
        offset: (p.current! - 1) * size,
      });
      return JSON.stringify({ records: rows.map((r) => this.item(r, locale)), total });
    }
    const skuId = s('skuId', 64);
    if (!skuId) throw badRequest('error.validation.field', { field: 'skuId' });
    const variants = await this.d.catalogueRepo.variants(skuId, currency);
    const out = [];
    for (const v of variants) {
      const zones = v.time_zone ? [v.time_zone] : await this.d.catalogueRepo.regionZones(v.region_id);
      out.push({
        skuId: v.id,
        skuPriceId: `${v.id}:${v.currency}`,
        packageName: this.name(v, locale),
        ...this.parts(v, locale),
        Day: v.days,
        isPackage: v.is_package,
        price: toMajor(v.price, v.currency),
        currency: v.currency,
        currencyName: currencySymbol(v.currency),
        country: v.country_code ?? v.region_id,
        timeZoneList: zones,
        depositAmount: toMajor(await this.boxDeposit(v.currency), v.currency),
      });
    }
    return JSON.stringify(out);
  }

  /** The package's name: in `locale` when the operator gave one, else the default. */
  name(r: SkuRow, locale?: string) {
    const names = (typeof r.names === 'string' ? JSON.parse(r.names) : (r.names ?? {})) as Record<string, string>;
    return packageName(r.country_name ?? r.region_name, (locale && names[locale]) || r.name, {
      kind: r.plan_kind,
      value: r.plan_value,
    });
  }

  /** What a screen names the package by in the rider's language: its own name in `locale`, and its plan (words the app's). */
  private parts(r: SkuRow, locale?: string) {
    const names = (typeof r.names === 'string' ? JSON.parse(r.names) : (r.names ?? {})) as Record<string, string>;
    return { name: (locale && names[locale]) || r.name, planKind: r.plan_kind, planValue: r.plan_value };
  }

  private item(r: SkuRow, locale?: string) {
    return {
      skuId: r.id,
      packageName: this.name(r, locale),
      ...this.parts(r, locale),
      text:
        r.plan_kind === 'mb'
          ? `${r.plan_value} MB`
          : r.plan_kind === 'unlimited'
            ? 'Unlimited'
            : `${r.plan_value} days`,
      isPackage: r.is_package,
      Day: r.days,
      country: r.country_code ?? '',
      countryName: r.country_name ?? r.region_name,
      region: r.region_id,
      flagUrl: r.flag_url,
      price: toMajor(r.price, r.currency),
      currency: r.currency,
      currencyName: currencySymbol(r.currency),
      timeZone: r.time_zone ?? 'UTC',
    };
  }

  /**
   * The box deposit in a currency: the one set in the console for it, else the lowest Wi-Fi price plan deposit of
   * the venues in that currency (0: boxes cannot be had in it).
   */
  async boxDeposit(currency: string) {
    return (await this.d.catalogueRepo.boxDeposit(currency)) ?? this.d.venues.mifiDeposit(currency);
  }
}
