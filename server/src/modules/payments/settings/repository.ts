// The payment_method_settings table (owned by payments/settings): each agent's methods as set in the console, the
// keys sealed (seal.ts). Saves are optimistic: an update names the version it read.
import type { Queryable } from '../../../db/db.ts';

export interface SettingsRow {
  agent_id: string;
  method: string;
  enabled: boolean;
  /** Key name → sealed value. */
  sealed_keys: Record<string, string>;
  version: number;
  updated_at: Date;
}

const COLUMNS = 'agent_id, method, enabled, sealed_keys, version, updated_at';

export class PaymentSettingsRepository {
  constructor(private readonly db: Queryable) {}

  async all(): Promise<SettingsRow[]> {
    const { rows } = await this.db.query<SettingsRow>(
      `select ${COLUMNS} from payment_method_settings order by agent_id, method`,
    );
    return rows;
  }

  async ofAgent(agentId: string): Promise<SettingsRow[]> {
    const { rows } = await this.db.query<SettingsRow>(
      `select ${COLUMNS} from payment_method_settings where agent_id = $1 order by method`,
      [agentId],
    );
    return rows;
  }

  async one(agentId: string, method: string): Promise<SettingsRow | undefined> {
    const { rows } = await this.db.query<SettingsRow>(
      `select ${COLUMNS} from payment_method_settings where agent_id = $1 and method = $2 for update`,
      [agentId, method],
    );
    return rows[0];
  }

  /** A first row for the agent and method; undefined when one was made in between (a concurrent first save). */
  async insert(r: {
    agentId: string;
    method: string;
    enabled: boolean;
    sealedKeys: Record<string, string>;
    at: Date;
    by: string | null;
  }): Promise<SettingsRow | undefined> {
    const { rows } = await this.db.query<SettingsRow>(
      `insert into payment_method_settings (agent_id, method, enabled, sealed_keys, version, updated_at, updated_by) values ($1, $2, $3, $4, 1, $5, $6)
       on conflict (agent_id, method) do nothing returning ${COLUMNS}`,
      [r.agentId, r.method, r.enabled, JSON.stringify(r.sealedKeys), r.at, r.by],
    );
    return rows[0];
  }

  /** Saves over the version read; undefined when the row moved on since (someone saved in between). */
  async update(r: {
    agentId: string;
    method: string;
    version: number;
    enabled: boolean;
    sealedKeys: Record<string, string>;
    at: Date;
    by: string | null;
  }): Promise<SettingsRow | undefined> {
    const { rows } = await this.db.query<SettingsRow>(
      `update payment_method_settings set enabled = $4, sealed_keys = $5, version = version + 1, updated_at = $6, updated_by = $7
       where agent_id = $1 and method = $2 and version = $3 returning ${COLUMNS}`,
      [r.agentId, r.method, r.version, r.enabled, JSON.stringify(r.sealedKeys), r.at, r.by],
    );
    return rows[0];
  }

  /** A stamp that moves with every save (versions only grow; rows are never deleted): other processes reload on a change. */
  async stamp(): Promise<string> {
    const { rows } = await this.db.query<{ n: number; v: string }>(
      'select count(*)::int as n, coalesce(sum(version), 0)::text as v from payment_method_settings',
    );
    return `${rows[0]!.n}:${rows[0]!.v}`;
  }
}
