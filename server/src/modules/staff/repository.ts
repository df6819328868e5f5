// Owns staff, staff_memberships, staff_sessions, staff_invitations, staff_passkeys, staff_ceremonies.
import type { Queryable } from '../../db/db.ts';
import type { Membership, StaffRole } from '#core/opsAccess.ts';
import { orderBy, type SortSpec } from '../../lib/ops-query.ts';

export interface StaffRow {
  id: string;
  email: string;
  name: string;
  disabled_at: Date | null;
  version: number;
}

export interface SessionRow {
  staff_id: string;
  last_seen_at: Date;
  expires_at: Date;
}

export interface PasskeyRow {
  credential_id: string;
  staff_id: string;
  public_key: Uint8Array;
  counter: string | number;
  transports: string[];
  label: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface InvitationRow {
  /** 'passkey': the e-mailed link creates a passkey; 'sso': a single sign-on with this e-mail accepts it. */
  sign_in: 'passkey' | 'sso';
  email: string;
  name: string;
  agent_id: string;
  role: StaffRole;
  venue_ids: string[];
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at?: Date | null;
}

/** An invitation as an admin lists it. */
export interface InvitationListRow extends InvitationRow {
  id: string;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
  invited_by_email: string;
}

export interface CeremonyRow {
  kind: string;
  challenge: string;
  staff_id: string | null;
  verifier: string | null;
  nonce: string | null;
  expires_at: Date;
}

const STAFF_COLUMNS = 'id::text as id, email, name, disabled_at, version';
const INVITATION_COLUMNS =
  'i.sign_in, i.email, i.name, i.agent_id, i.role, i.venue_ids, i.invited_by::text as invited_by, i.expires_at, i.accepted_at, i.revoked_at';
const INVITATION_LIST = `select i.id::text as id, i.token_hash, i.created_at, ${INVITATION_COLUMNS}, s.email as invited_by_email
  from staff_invitations i join staff s on s.id = i.invited_by`;
const STAFF_SORT: SortSpec = { name: 'lower(name)', email: 'lower(email)' };

export class StaffRepository {
  constructor(private readonly db: Queryable) {}

  // ---- staff and memberships ----

  async byEmail(email: string): Promise<StaffRow | undefined> {
    const { rows } = await this.db.query<StaffRow>(
      `select ${STAFF_COLUMNS} from staff where lower(email) = lower($1)`,
      [email],
    );
    return rows[0];
  }

  async byId(id: string): Promise<StaffRow | undefined> {
    const { rows } = await this.db.query<StaffRow>(`select ${STAFF_COLUMNS} from staff where id = $1`, [id]);
    return rows[0];
  }

  async create(email: string, name: string, at: Date): Promise<StaffRow> {
    const { rows } = await this.db.query<StaffRow>(
      `insert into staff (email, name, created_at) values ($1, $2, $3) returning ${STAFF_COLUMNS}`,
      [email, name, at],
    );
    return rows[0]!;
  }

  /** The row when its version is still `version` (then version + 1); undefined when another save came first. */
  async update(
    id: string,
    version: number,
    change: { name?: string; disabledAt?: Date | null },
  ): Promise<StaffRow | undefined> {
    const { rows } = await this.db.query<StaffRow>(
      `update staff set name = coalesce($3, name),
         disabled_at = case when $4::boolean then $5::timestamptz else disabled_at end,
         version = version + 1
       where id = $1 and version = $2 returning ${STAFF_COLUMNS}`,
      [id, version, change.name ?? null, change.disabledAt !== undefined, change.disabledAt ?? null],
    );
    return rows[0];
  }

  async memberships(staffIds: string[]): Promise<Map<string, Membership[]>> {
    const { rows } = await this.db.query<{ staff_id: string; agent_id: string; role: StaffRole; venue_ids: string[] }>(
      'select staff_id::text as staff_id, agent_id, role, venue_ids from staff_memberships where staff_id = any($1::bigint[]) order by agent_id',
      [staffIds],
    );
    const out = new Map<string, Membership[]>(staffIds.map((id) => [id, []]));
    for (const r of rows) out.get(r.staff_id)?.push({ agentId: r.agent_id, role: r.role, venueIds: r.venue_ids });
    return out;
  }

  /** Ends one membership of a person (their others stay): false when they had none at that agent. */
  async deleteMembership(staffId: string, agentId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('delete from staff_memberships where staff_id = $1 and agent_id = $2', [
      staffId,
      agentId,
    ]);
    return rowCount === 1;
  }

  /** The platform's owners still able to sign in, their memberships locked until the unit of work ends. */
  async platformOwnersLocked(): Promise<string[]> {
    const { rows } = await this.db.query<{ staff_id: string }>(
      `select m.staff_id::text as staff_id from staff_memberships m join staff s on s.id = m.staff_id
       where m.agent_id = '*' and m.role = 'owner' and s.disabled_at is null for update of m`,
    );
    return rows.map((r) => r.staff_id);
  }

  async setMembership(staffId: string, m: Membership): Promise<void> {
    await this.db.query(
      `insert into staff_memberships (staff_id, agent_id, role, venue_ids) values ($1, $2, $3, $4)
       on conflict (staff_id, agent_id) do update set role = excluded.role, venue_ids = excluded.venue_ids`,
      [staffId, m.agentId, m.role, m.venueIds],
    );
  }

  /**
   * A page of staff with a membership inside `agents` (null: everyone), filtered by `q` (name or e-mail) and
   * `agentId`, in `sort` order, after the cursor `after` ([sort value, id]).
   */
  async list(f: {
    agents: string[] | null;
    q?: string;
    agentId?: string;
    sort: string;
    after?: [string, string];
    limit: number;
  }): Promise<Array<StaffRow & { sort_key: string }>> {
    const order = orderBy(STAFF_SORT, f.sort, 'id');
    const params: unknown[] = [
      f.agents,
      f.q ? `%${f.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` : null,
      f.agentId ?? null,
      f.limit,
    ];
    const after = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, id) ${order.desc ? '<' : '>'} ($5, $6::bigint)`)
      : '';
    const { rows } = await this.db.query<StaffRow & { sort_key: string }>(
      `select ${STAFF_COLUMNS}, ${order.key} as sort_key from staff s
       where ($1::text[] is null or exists (select 1 from staff_memberships m where m.staff_id = s.id and m.agent_id = any($1::text[])))
         and ($2::text is null or lower(name) like $2 or lower(email) like $2)
         and ($3::text is null or exists (select 1 from staff_memberships m where m.staff_id = s.id and m.agent_id = $3))
         ${after}
       order by ${order.sql} limit $4`,
      params,
    );
    return rows;
  }

  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('select count(*)::int as n from staff');
    return rows[0]?.n ?? 0;
  }

  // ---- sessions ----

  async insertSession(s: {
    tokenHash: string;
    staffId: string;
    method: string;
    ip: string;
    userAgent: string;
    at: Date;
    expiresAt: Date;
  }) {
    await this.db.query(
      `insert into staff_sessions (token_hash, staff_id, method, ip, user_agent, created_at, last_seen_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $6, $7)`,
      [s.tokenHash, s.staffId, s.method, s.ip, s.userAgent, s.at, s.expiresAt],
    );
  }

  async session(tokenHash: string): Promise<SessionRow | undefined> {
    const { rows } = await this.db.query<SessionRow>(
      'select staff_id::text as staff_id, last_seen_at, expires_at from staff_sessions where token_hash = $1',
      [tokenHash],
    );
    return rows[0];
  }

  async touchSession(tokenHash: string, at: Date) {
    await this.db.query('update staff_sessions set last_seen_at = $2 where token_hash = $1', [tokenHash, at]);
  }

  async deleteSession(tokenHash: string) {
    await this.db.query('delete from staff_sessions where token_hash = $1', [tokenHash]);
  }

  /** Ends every session of the person (but `keep`, the caller's own, when given): the count ended. */
  async deleteSessionsOf(staffId: string, keep?: string): Promise<number> {
    const { rowCount } = await this.db.query(
      'delete from staff_sessions where staff_id = $1 and token_hash is distinct from $2',
      [staffId, keep ?? null],
    );
    return rowCount;
  }

  // ---- passkeys ----

  async passkey(credentialId: string): Promise<PasskeyRow | undefined> {
    const { rows } = await this.db.query<PasskeyRow>(
      'select credential_id, staff_id::text as staff_id, public_key, counter, transports, label, created_at, last_used_at from staff_passkeys where credential_id = $1',
      [credentialId],
    );
    return rows[0];
  }

  async passkeysOf(staffId: string): Promise<PasskeyRow[]> {
    const { rows } = await this.db.query<PasskeyRow>(
      `select credential_id, staff_id::text as staff_id, public_key, counter, transports, label, created_at, last_used_at
       from staff_passkeys where staff_id = $1 order by created_at`,
      [staffId],
    );
    return rows;
  }

  async insertPasskey(p: {
    credentialId: string;
    staffId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: string[];
    label: string;
    at: Date;
  }) {
    await this.db.query(
      `insert into staff_passkeys (credential_id, staff_id, public_key, counter, transports, label, created_at)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [p.credentialId, p.staffId, p.publicKey, p.counter, p.transports, p.label, p.at],
    );
  }

  async usePasskey(credentialId: string, counter: number, at: Date) {
    await this.db.query('update staff_passkeys set counter = $2, last_used_at = $3 where credential_id = $1', [
      credentialId,
      counter,
      at,
    ]);
  }

  // ---- ceremonies (WebAuthn challenges, single sign-on states) ----

  async insertCeremony(id: string, c: CeremonyRow) {
    await this.db.query(
      'insert into staff_ceremonies (id, kind, challenge, staff_id, verifier, nonce, expires_at) values ($1, $2, $3, $4, $5, $6, $7)',
      [id, c.kind, c.challenge, c.staff_id, c.verifier, c.nonce, c.expires_at],
    );
  }

  /** Takes a ceremony (one use): gone afterwards whatever its answer. */
  async takeCeremony(id: string, kind: string): Promise<CeremonyRow | undefined> {
    const { rows } = await this.db.query<CeremonyRow>(
      `delete from staff_ceremonies where id = $1 and kind = $2
       returning kind, challenge, staff_id::text as staff_id, verifier, nonce, expires_at`,
      [id, kind],
    );
    return rows[0];
  }

  async sweepCeremonies(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('delete from staff_ceremonies where expires_at < $1', [before]);
    return rowCount;
  }

  async sweepSessions(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('delete from staff_sessions where expires_at < $1', [before]);
    return rowCount;
  }

  // ---- invitations ----

  /** The new invitation's id. */
  async insertInvitation(tokenHash: string, i: InvitationRow, at: Date): Promise<string> {
    const { rows } = await this.db.query<{ id: string }>(
      `insert into staff_invitations (token_hash, email, name, agent_id, role, venue_ids, invited_by, created_at, expires_at, sign_in)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id::text as id`,
      [tokenHash, i.email, i.name, i.agent_id, i.role, i.venue_ids, i.invited_by, at, i.expires_at, i.sign_in],
    );
    return rows[0]!.id;
  }

  async invitation(tokenHash: string): Promise<InvitationRow | undefined> {
    const { rows } = await this.db.query<InvitationRow>(
      `select ${INVITATION_COLUMNS} from staff_invitations i where token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  }

  async invitationById(id: string): Promise<InvitationListRow | undefined> {
    const { rows } = await this.db.query<InvitationListRow>(`${INVITATION_LIST} where i.id = $1`, [id]);
    return rows[0];
  }

  /**
   * A page of invitations to memberships inside `agents` (null: every one, the platform's included), newest
   * first (by id), filtered by state at `now`, e-mail or name, and agent.
   */
  async listInvitations(f: {
    agents: string[] | null;
    state?: string;
    q?: string;
    agentId?: string;
    now: Date;
    after?: string;
    limit: number;
  }): Promise<InvitationListRow[]> {
    const { rows } = await this.db.query<InvitationListRow>(
      `${INVITATION_LIST}
       where ($1::text[] is null or i.agent_id = any($1::text[]))
         and ($2::text is null or (case when i.revoked_at is not null then 'revoked' when i.accepted_at is not null then 'accepted'
                                        when i.expires_at <= $5 then 'expired' else 'pending' end) = $2)
         and ($3::text is null or lower(i.email) like $3 or lower(i.name) like $3)
         and ($4::text is null or i.agent_id = $4)
         and ($6::bigint is null or i.id < $6)
       order by i.id desc limit $7`,
      [
        f.agents,
        f.state ?? null,
        f.q ? `%${f.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` : null,
        f.agentId ?? null,
        f.now,
        f.after ?? null,
        f.limit,
      ],
    );
    return rows;
  }

  /** Revokes an invitation not accepted nor revoked yet: false otherwise. */
  async revokeInvitation(id: string, by: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'update staff_invitations set revoked_at = $3, revoked_by = $2 where id = $1 and accepted_at is null and revoked_at is null',
      [id, by, at],
    );
    return rowCount === 1;
  }

  /** The single sign-on invitations of an e-mail that can still be accepted at `now` (oldest first). */
  async pendingSsoInvitations(email: string, now: Date): Promise<Array<InvitationRow & { token_hash: string }>> {
    const { rows } = await this.db.query<InvitationRow & { token_hash: string }>(
      `select token_hash, ${INVITATION_COLUMNS} from staff_invitations i
       where lower(email) = lower($1) and sign_in = 'sso' and accepted_at is null and revoked_at is null and expires_at > $2 order by id`,
      [email, now],
    );
    return rows;
  }

  /** Takes the next version of a person (a change of their memberships): false when another save came first. */
  async bumpVersion(id: string, version: number): Promise<StaffRow | undefined> {
    const { rows } = await this.db.query<StaffRow>(
      `update staff set version = version + 1 where id = $1 and version = $2 returning ${STAFF_COLUMNS}`,
      [id, version],
    );
    return rows[0];
  }

  /** Marks the invitation accepted by `staffId`: false when it was accepted already (a second use). */
  async acceptInvitation(tokenHash: string, staffId: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'update staff_invitations set accepted_at = $3, staff_id = $2 where token_hash = $1 and accepted_at is null and revoked_at is null',
      [tokenHash, staffId, at],
    );
    return rowCount === 1;
  }
}
