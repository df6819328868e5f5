// The support desk's reads of riders' Wi-Fi packages (packages-desk.ts): the search, newest first in keyset pages,
// and one package. A package is inside the scope of its order's cabinet (its agent; a venue partner's: its venue);
// one ordered without a cabinet, of the agents the rider is a customer of (customerOfSql).
import type { Queryable } from '../../db/db.ts';
import { customerOfSql } from '../auth/riders-repository.ts';

export interface PackageSearch {
  agents: string[] | null;
  pairs: string[];
  q?: string;
  userIds: number[] | null;
  cardLast4?: string;
  deviceSn?: string;
  cabinetId?: string;
  venueId?: string;
  status?: number;
  from?: Date;
  to?: Date;
}

export interface PackageOpsRow {
  id: string;
  order_id: string;
  user_id: number;
  package_name: string;
  country: string | null;
  days: number;
  price: number;
  deposit: number;
  currency: string;
  status: number;
  device_sn: string | null;
  refunded_amount: number;
  start_at: Date;
  end_at: Date;
  created_at: Date;
  activated_at: Date | null;
  ended_at: Date | null;
  bound_at: Date | null;
  returned_at: Date | null;
  eject_command_id: string | null;
  pickup_state: number;
  cabinet_id: string | null;
  venue_id: string | null;
  agent_id: string | null;
  card_last4: string | null;
  paid_at: Date | null;
}

const SELECT = `select k.id, k.order_id, k.user_id, k.package_name, k.country, k.days, k.price, k.deposit, k.currency, k.status, k.device_sn,
       k.refunded_amount, k.start_at, k.end_at, k.created_at, k.activated_at, k.ended_at, k.bound_at, k.returned_at, k.eject_command_id,
       k.pickup_state, m.cabinet_id, m.paid_at, c.venue_id, c.agent_id,
       (select p.card_last4 from payments p where p.order_id = m.id and p.card_last4 is not null order by p.created_at desc limit 1) as card_last4
  from mifi_packages k join mifi_orders m on m.id = k.order_id left join cabinets c on c.id = m.cabinet_id`;
/** The scope over the package `k`, its order's cabinet `c`, with $1 (agents) and $2 (pairs). */
const SCOPE = `($1::text[] is null or c.agent_id = any($1::text[]) or (c.agent_id || '/' || c.venue_id) = any($2::text[])
  or (c.id is null and ${customerOfSql('k.user_id', '$1')}))`;

const num = (r: PackageOpsRow): PackageOpsRow => ({
  ...r,
  user_id: Number(r.user_id),
  price: Number(r.price),
  deposit: Number(r.deposit),
  refunded_amount: Number(r.refunded_amount),
  currency: String(r.currency).trim(),
  country: r.country?.trim() ?? null,
});

export class PackagesOpsRepository {
  constructor(private readonly db: Queryable) {}

  /** Newest first, after the cursor `[created_at, id]`; `limit` rows. */
  async search(f: PackageSearch, after: [string, string] | undefined, limit: number): Promise<PackageOpsRow[]> {
    const { rows } = await this.db.query<PackageOpsRow>(
      `${SELECT}
        where ${SCOPE}
          and ($3::text is null or k.id = $3 or k.order_id = $3 or k.device_sn = $3)
          and ($4::bigint[] is null or k.user_id = any($4::bigint[]))
          and ($5::text is null or exists (select 1 from payments p where p.order_id = m.id and p.card_last4 = $5))
          and ($6::text is null or k.device_sn = $6)
          and ($7::text is null or m.cabinet_id = $7)
          and ($8::text is null or c.venue_id = $8)
          and ($9::smallint is null or k.status = $9)
          and ($10::timestamptz is null or k.created_at >= $10)
          and ($11::timestamptz is null or k.created_at < $11)
          and ($12::timestamptz is null or (k.created_at, k.id) < ($12::timestamptz, $13::text))
        order by k.created_at desc, k.id desc limit $14`,
      [
        f.agents,
        f.pairs,
        f.q ?? null,
        f.userIds,
        f.cardLast4 ?? null,
        f.deviceSn ?? null,
        f.cabinetId ?? null,
        f.venueId ?? null,
        f.status ?? null,
        f.from ?? null,
        f.to ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
      ],
    );
    return rows.map(num);
  }

  /** One package inside the scope, else undefined. */
  async inScope(id: string, s: { agents: string[] | null; pairs: string[] }): Promise<PackageOpsRow | undefined> {
    const { rows } = await this.db.query<PackageOpsRow>(`${SELECT} where ${SCOPE} and k.id = $3`, [
      s.agents,
      s.pairs,
      id,
    ]);
    return rows[0] ? num(rows[0]) : undefined;
  }
}
