// The support desk's search of riders: by id, phone (digits compared, any formatting) or e-mail (any case).
import type { Queryable } from '../../db/db.ts';

export interface RiderSearchRow {
  id: number;
  kind: string;
  name: string;
  email: string | null;
  mobile: string | null;
  created_at: Date;
  blocked_at: Date | null;
}

/** The support desk's search of riders: inside `agents` (the riders with an account there; null: every rider). */
export interface RiderSearch {
  agents: string[] | null;
  /** A rider id, phone or e-mail: the riders it names. */
  qUsers: number[] | null;
  userIds: number[] | null;
  blocked?: boolean;
  from?: Date;
  to?: Date;
}

export interface RiderContact {
  id: number;
  mobile: string | null;
  email: string | null;
}

const digits = (s: string) => s.replace(/\D/g, '');

/**
 * SQL: the rider `user` (an SQL expression) is a customer of one of the agents `agents` (a text[] parameter): an
 * account with the agent (its wallet, its deposits), or a rental at one of its venues. The support desk's scope of
 * riders, and of what is theirs without a venue of its own (a wallet top-up, a Wi-Fi package without a cabinet).
 */
export const customerOfSql = (user: string, agents: string) =>
  `(exists (select 1 from ledger_accounts la where la.owner_type = 'user' and la.owner_id = (${user})::text and la.agent_id = any(${agents}::text[]))
    or exists (select 1 from orders ro join venues rv on rv.id = ro.venue_id where ro.user_id = ${user} and rv.agent_id = any(${agents}::text[])))`;

export class RidersRepository {
  constructor(private readonly db: Queryable) {}

  /** Riders whose id, phone or e-mail is `q` (each compared its own way), at most `limit`. */
  async matching(q: { any?: string; phone?: string; email?: string; id?: string }, limit = 1000): Promise<number[]> {
    const any = q.any?.trim();
    const phone = digits(q.phone ?? any ?? '');
    const email = (q.email ?? (any?.includes('@') ? any : '') ?? '').trim().toLowerCase();
    const id = q.id ?? (any && /^\d{1,18}$/.test(any) ? any : '');
    const { rows } = await this.db.query<{ id: string }>(
      `select id::text as id from users
        where ($1::text <> '' and mobile is not null and regexp_replace(mobile, '\\D', '', 'g') = $1)
           or ($2::text <> '' and email is not null and lower(email) = $2)
           or id = nullif($3::text, '')::bigint
        limit $4`,
      [phone.length >= 3 ? phone : '', email, id, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  async contacts(ids: number[]): Promise<RiderContact[]> {
    if (!ids.length) return [];
    const { rows } = await this.db.query<{ id: string; mobile: string | null; email: string | null }>(
      'select id::text as id, mobile, email from users where id = any($1::bigint[])',
      [ids],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }

  /** Newest first, after the cursor `[created_at, id]`; `limit` rows. */
  async search(f: RiderSearch, after: [string, string] | undefined, limit: number): Promise<RiderSearchRow[]> {
    const { rows } = await this.db.query<RiderSearchRow & { id: string }>(
      `select u.id::text as id, u.kind, u.name, u.email, u.mobile, u.created_at, u.blocked_at from users u
        where ($1::text[] is null or ${customerOfSql('u.id', '$1')})
          and ($2::bigint[] is null or u.id = any($2::bigint[]))
          and ($3::bigint[] is null or u.id = any($3::bigint[]))
          and ($4::boolean is null or (u.blocked_at is not null) = $4)
          and ($5::timestamptz is null or u.created_at >= $5)
          and ($6::timestamptz is null or u.created_at < $6)
          and ($7::timestamptz is null or (u.created_at, u.id) < ($7::timestamptz, $8::bigint))
        order by u.created_at desc, u.id desc limit $9`,
      [
        f.agents,
        f.qUsers,
        f.userIds,
        f.blocked ?? null,
        f.from ?? null,
        f.to ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
      ],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }

  /** The agents each rider is a customer of (customerOfSql): an account with it, or a rental at one of its venues. */
  async agentsOf(ids: number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (!ids.length) return out;
    const { rows } = await this.db.query<{ user_id: string; agent_id: string }>(
      `select user_id, agent_id from (
         select owner_id as user_id, agent_id from ledger_accounts where owner_type = 'user' and owner_id = any($1::text[])
         union
         select o.user_id::text, v.agent_id from orders o join venues v on v.id = o.venue_id where o.user_id = any($2::bigint[]) and v.agent_id is not null
       ) a order by user_id, agent_id`,
      [ids.map(String), ids],
    );
    for (const r of rows) out.set(Number(r.user_id), [...(out.get(Number(r.user_id)) ?? []), r.agent_id]);
    return out;
  }
}
