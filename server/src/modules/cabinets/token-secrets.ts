// Token secrets of the binary TCP family's cabinets (docs/cabinet-protocol.md "The binary TCP family",
// docs/operations.md "Vendor cabinets"). The family signs every frame with the first 4 bytes of
// MD5(payload ‖ secret), so the server must hold the secret itself to check a cabinet's frames and sign its own: it
// cannot keep only a hash, as it does for broker passwords. Each cabinet's secret is random (issued and rotated by
// an operator: `npm run cabinet:credentials`, or the console), shown once, and stored sealed: AES-256-GCM under a
// key derived (HKDF-SHA256) from CABINET_SECRETS_KEY, a fresh 96-bit nonce each time, the cabinet id as associated
// data (a sealed secret copied to another cabinet's row does not open). With SANDBOX=on and no CABINET_SECRETS_KEY
// the key is generated per installation (installation_secrets); production has no such fallback.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { SecretsRepository } from '../../secrets/repository.ts';
import type { CabinetCredentialsRepository } from './credentials-repository.ts';

/** The family whose cabinets sign with a token secret. */
export const TOKEN_SECRET_VENDOR = 'tcp60';
export const SECRETS_KEY_MIN_LENGTH = 32;
/** The sealing key, or undefined when none is configured. */
export type SecretsKey = () => Promise<Buffer | undefined>;

export class SecretsKeyMissing extends Error {
  constructor() {
    super(
      "CABINET_SECRETS_KEY is not set: the TCP cabinets' token secrets cannot be sealed or opened without it (docs/operations.md)",
    );
  }
}

export function deriveSecretsKey(master: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, 'powerly cabinet token secrets', 'aes-256-gcm v1', 32));
}

export function sealSecret(key: Buffer, cabinetId: string, secret: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(cabinetId, 'utf8'));
  const ct = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), ct.toString('base64url'), c.getAuthTag().toString('base64url')].join('.');
}

/** The secret; throws when the sealed text was not made with this key for this cabinet. */
export function openSecret(key: Buffer, cabinetId: string, sealed: string): string {
  const [v, iv, ct, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !ct || !tag) throw new Error('not a sealed token secret');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  d.setAAD(Buffer.from(cabinetId, 'utf8'));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
}

/** The sealing key from `given` (CABINET_SECRETS_KEY), or the installation's own with SANDBOX=on. */
export function cabinetSecretsKey(o: { given?: string; db: Queryable; clock: Clock; sandbox: boolean }): SecretsKey {
  const given = o.given || undefined;
  if (given && given.length < SECRETS_KEY_MIN_LENGTH)
    throw new Error(`CABINET_SECRETS_KEY must be at least ${SECRETS_KEY_MIN_LENGTH} characters`);
  let key: Promise<Buffer | undefined> | undefined;
  return () => {
    key ??= given
      ? Promise.resolve(deriveSecretsKey(given))
      : o.sandbox
        ? new SecretsRepository(o.db).get('sandbox.cabinet-secrets-key', o.clock.now()).then(deriveSecretsKey)
        : Promise.resolve(undefined);
    return key.catch((err: unknown) => {
      key = undefined; // a database hiccup: try again next time
      throw err;
    });
  };
}

export class CabinetTokenSecrets {
  constructor(
    private readonly repo: CabinetCredentialsRepository,
    private readonly key: SecretsKey,
  ) {}

  /** A new secret for the cabinet (the previous one is refused from its next login); returned once, kept sealed. */
  async issue(cabinetId: string, at: Date): Promise<string> {
    const key = await this.key();
    if (!key) throw new SecretsKeyMissing();
    const secret = randomBytes(24).toString('base64url');
    await this.repo.setTokenSecret(cabinetId, sealSecret(key, cabinetId, secret), at);
    return secret;
  }

  /** The cabinet's secret, or null when none was issued. */
  async secretOf(cabinetId: string): Promise<string | null> {
    const sealed = await this.repo.sealedTokenSecret(cabinetId);
    if (!sealed) return null;
    const key = await this.key();
    if (!key) throw new SecretsKeyMissing();
    return openSecret(key, cabinetId, sealed);
  }
}
