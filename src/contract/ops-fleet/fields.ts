// The fields the fleet's shapes (src/contract/ops-fleet.ts) share: ids, money, countries, texts and versions.
import { Type } from 'typebox';

export const Id = Type.String({
  pattern: '^[A-Za-z0-9._-]{1,64}$',
  description: 'letters, digits, dot, dash, underscore',
});
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
export const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' });
export const Minor = Type.Integer({ minimum: 0, maximum: 1e12, description: 'integer minor units of the currency' });
export const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
export const Version = Type.Integer({ minimum: 1, description: 'the version read; a stale one is refused with 409' });
/** The five languages of the product (locales/*.json). */
export const FLEET_LANGS = ['en-US', 'zh-CN', 'lt-LT', 'pt-PT', 'es-ES'] as const;

export const DEVICE_KINDS = ['cdb', 'station', 'mifi'] as const;
export const DeviceKind = Type.Union([Type.Literal('cdb'), Type.Literal('station'), Type.Literal('mifi')], {
  description: 'power bank, power station, Wi-Fi box',
});
