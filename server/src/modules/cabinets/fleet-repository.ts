// The cabinets and powerbanks tables for the fleet's operations: registration, assignment to a venue, devices put
// in slots, and the operator's list of cabinets with what their slots hold (reading the venue's name).
import type { DeviceKind } from '#core/devices.ts';
import type { Queryable } from '../../db/db.ts';

export interface CabinetListRow {
  id: string;
  vendor: string;
  venue_id: string | null;
  venue_name: string | null;
  slot_count: number;
  online: boolean;
  last_seen_at: Date | null;
  inventory: { slot: number; powerbankId: string | null; battery: number | null }[] | string | null;
  has_credentials: boolean;
  devices: { id: string; slot: number; kind: DeviceKind; state: string }[] | string | null;
}

export class CabinetFleetRepository {
  constructor(private readonly db: Queryable) {}

  /** Inserts a cabinet; false when the id is taken. */
  async insert(c: { id: string; vendor: string; slots: number; venueId: string | null }, at: Date): Promise<boolean> {
    const res = await this.db.query(
      'insert into cabinets (id, vendor, slot_count, venue_id, registered_at) values ($1, $2, $3, $4, $5) on conflict (id) do nothing',
      [c.id, c.vendor, c.slots, c.venueId, at],
    );
    return res.rowCount === 1;
  }

  /** The ids of these that exist. */
  async existing(ids: string[]): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>('select id from cabinets where id = any($1)', [ids]);
    return new Set(rows.map((r) => r.id));
  }

  async cabinet(id: string) {
    const { rows } = await this.db.query<{ id: string; slot_count: number; venue_id: string | null }>(
      'select id, slot_count, venue_id from cabinets where id = $1',
      [id],
    );
    return rows[0];
  }

  async assign(id: string, venueId: string | null): Promise<boolean> {
    return (await this.db.query('update cabinets set venue_id = $2 where id = $1', [id, venueId])).rowCount === 1;
  }

  /** Whether a device id is known, and what holds the slot. */
  async slotAndDevice(deviceId: string, cabinetId: string, slot: number) {
    const { rows } = await this.db.query<{ device: boolean; slot_taken: boolean }>(
      `select exists (select 1 from powerbanks where id = $1) as device,
              exists (select 1 from powerbanks where cabinet_id = $2 and slot = $3) as slot_taken`,
      [deviceId, cabinetId, slot],
    );
    return rows[0]!;
  }

  /** A new device, lendable in that slot. */
  async insertDevice(d: { id: string; kind: DeviceKind; cabinetId: string; slot: number }) {
    await this.db.query(
      `insert into powerbanks (id, state, cabinet_id, slot, kind) values ($1, 'in_cabinet', $2, $3, $4)`,
      [d.id, d.cabinetId, d.slot, d.kind],
    );
  }

  /** Every cabinet (or one) with its venue, last report and the devices recorded in its slots. */
  async list(id?: string) {
    const { rows } = await this.db.query<CabinetListRow>(
      `select c.id, c.vendor, c.venue_id, v.name as venue_name, c.slot_count, c.online, c.last_seen_at, c.inventory,
              (exists (select 1 from cabinet_credentials k where k.cabinet_id = c.id)
                or exists (select 1 from cabinet_token_secrets t where t.cabinet_id = c.id)) as has_credentials,
              (select jsonb_agg(jsonb_build_object('id', p.id, 'slot', p.slot, 'kind', p.kind, 'state', p.state) order by p.slot)
                 from powerbanks p where p.cabinet_id = c.id and p.slot is not null) as devices
         from cabinets c left join venues v on v.id = c.venue_id
        where $1::text is null or c.id = $1 order by c.id`,
      [id ?? null],
    );
    return rows;
  }
}
