// The support desk's search of riders: by id, phone (digits compared, any formatting) or e-mail (any case).
import type { Queryable } from '../../db/db.ts';

export interface RiderContact {
  id: number;
  mobile: string | null;
  email: string | null;
}

const digits = (s: string) => s.replace(/\D/g, '');

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
}
