// A venue's logo and banner uploaded through the ops API: checked (media/images.ts), stored under a key that names
// their content (the media store: local folder or S3), and the venue's URL set in one unit of work with its audit
// entry, against the version read (a stale one: 409, nothing changed).
import type { Venue } from '#contract/ops-fleet.ts';
import type { Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { checkImage, type ImageKind } from '../media/images.ts';
import type { MediaStore } from '../media/store.ts';
import type { VenuesAdminService } from './admin.ts';
import type { VenuesOps } from './ops.ts';
import type { VenuesOpsRepository } from './ops-repository.ts';

export class VenueImages {
  constructor(
    private readonly d: {
      db: Db;
      clock: Clock;
      store: MediaStore;
      repo: VenuesOpsRepository;
      venues: VenuesAdminService;
      ops: VenuesOps;
      audit: AuditService;
    },
  ) {}

  async upload(
    scope: Scope,
    actor: Actor,
    id: string,
    version: number,
    kind: ImageKind,
    bytes: Uint8Array,
  ): Promise<Venue> {
    await this.d.ops.get(scope, id);
    const img = await checkImage(bytes, kind);
    const key = `venues/${kind}-${img.digest}.${img.ext}`;
    // Stored before the unit of work (a slow store never holds a transaction); a key names its content, so an
    // object whose save then fails is only unused, never wrong.
    await this.d.store.put(key, bytes, img.contentType);
    const url = `/media/${key}`;
    return this.d.db.tx(async () => {
      const before = await this.d.ops.get(scope, id);
      if ((await this.d.repo.setImage(id, version, kind, url, this.d.clock.now())) === undefined) throw staleVersion();
      const after = await this.d.venues.get(id);
      const field = kind === 'logo' ? 'logoUrl' : 'bannerUrl';
      await this.d.audit.record(actor, {
        action: `venue.${kind}`,
        entity: 'venue',
        entityId: id,
        agentId: after.agentId,
        before: { [field]: before[field] },
        after: {
          [field]: url,
          contentType: img.contentType,
          width: img.width,
          height: img.height,
          bytes: bytes.length,
        },
      });
      return after;
    });
  }
}
