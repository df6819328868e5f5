// The cabinets of the fleet as operators set them up: register by serial (and vendor family), assign to a venue,
// put devices in slots, issue and rotate broker credentials, list with live state, import from CSV (a dry run
// reports every bad row; nothing is imported while any row is bad), and the inbox's operator actions.
import {
  CabinetAssign,
  CabinetImportRequest,
  CabinetRegister,
  DeviceRegister,
  type CabinetImportReport,
  type CabinetLive,
} from '#contract/ops-fleet.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { FieldErrors, problemText, schemaProblems, validate, type FieldProblem } from '../../lib/validate.ts';
import { hashPassword, issueCabinetCredentials, mosquittoAclFile, mosquittoPasswordFile } from './credentials.ts';
import type { CabinetCredentialsRepository } from './credentials-repository.ts';
import type { CabinetFleetRepository } from './fleet-repository.ts';
import type { Liveness } from './liveness.ts';
import type { CabinetsRepository } from './repository.ts';
import { SecretsKeyMissing, TOKEN_SECRET_VENDOR, type CabinetTokenSecrets } from './token-secrets.ts';

export const DEFAULT_VENDOR = 'powerly';
const CSV_HEADER = ['id', 'vendor', 'slots', 'venueId'] as const;
const json = <T>(v: T | string | null): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** Fields of one CSV line (commas; a field may be double-quoted, "" inside for a quote). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"' && cur === '') quoted = true;
    else if (ch === ',') {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

export interface CabinetFleetDeps {
  db: Db;
  clock: Clock;
  repo: CabinetFleetRepository;
  cabinets: CabinetsRepository;
  credentials: CabinetCredentialsRepository;
  /** The TCP family's per-cabinet token secrets (sealed). */
  tokenSecrets: CabinetTokenSecrets;
  liveness: Liveness;
  /** Whether a venue exists (the venues module's service). */
  venueExists(id: string): Promise<boolean>;
}

export class CabinetFleetService {
  constructor(private readonly d: CabinetFleetDeps) {}

  async register(input: unknown): Promise<CabinetLive> {
    const p = schemaProblems(CabinetRegister, input);
    p.throwIfAny();
    const c = input as CabinetRegister;
    if (c.venueId && !(await this.d.venueExists(c.venueId))) p.add('venueId', 'notFound').throwIfAny();
    if (
      !(await this.d.repo.insert(
        { id: c.id, vendor: c.vendor ?? DEFAULT_VENDOR, slots: c.slots, venueId: c.venueId ?? null },
        this.d.clock.now(),
      ))
    ) {
      p.add('id', 'duplicate').throwIfAny();
    }
    return this.get(c.id);
  }

  /** Puts the cabinet at a venue (or takes it off any with null): its scans show that venue's plans from now on. */
  async assign(cabinetId: string, input: unknown): Promise<CabinetLive> {
    const { venueId } = validate(CabinetAssign, input);
    if (venueId && !(await this.d.venueExists(venueId)))
      throw new FieldErrors([{ field: 'venueId', code: 'notFound' }]);
    if (!(await this.d.repo.assign(cabinetId, venueId))) throw notFound('error.fleet.notFound', { id: cabinetId });
    return this.get(cabinetId);
  }

  /** A new power bank, power station or Wi-Fi box, lendable in a free slot of a cabinet. */
  async registerDevice(input: unknown): Promise<void> {
    const p = schemaProblems(DeviceRegister, input);
    p.throwIfAny();
    const dv = input as DeviceRegister;
    const cab = await this.d.repo.cabinet(dv.cabinetId);
    if (!cab) p.add('cabinetId', 'notFound').throwIfAny();
    if (dv.slot > cab!.slot_count) p.add('slot', 'range').throwIfAny();
    const known = await this.d.repo.slotAndDevice(dv.id, dv.cabinetId, dv.slot);
    if (known.device) p.add('id', 'duplicate');
    if (known.slot_taken) p.add('slot', 'duplicate');
    p.throwIfAny();
    await this.d.repo.insertDevice({ id: dv.id, kind: dv.kind ?? 'cdb', cabinetId: dv.cabinetId, slot: dv.slot });
  }

  async get(id: string): Promise<CabinetLive> {
    const [c] = await this.list(id);
    if (!c) throw notFound('error.fleet.notFound', { id });
    return c;
  }

  /** Cabinets with their live state: online (by status and recent heartbeats), last heartbeat, each slot's device and charge. */
  async list(id?: string): Promise<CabinetLive[]> {
    return (await this.d.repo.list(id)).map((r) => {
      const inv = json(r.inventory) ?? [];
      const devices = json(r.devices) ?? [];
      const slots = Array.from({ length: r.slot_count }, (_, i) => {
        const slot = i + 1;
        const dev = devices.find((x) => x.slot === slot);
        const rep = inv.find((x) => x.slot === slot);
        return {
          slot,
          deviceId: dev?.id ?? null,
          kind: dev?.kind ?? null,
          state: dev?.state ?? null,
          charge:
            rep && rep.powerbankId && rep.powerbankId === dev?.id && typeof rep.battery === 'number'
              ? rep.battery
              : null,
        };
      });
      return {
        id: r.id,
        vendor: r.vendor,
        venueId: r.venue_id,
        venueName: r.venue_name,
        slotCount: r.slot_count,
        online: this.d.liveness.isLive(r),
        lastHeartbeatAt: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null,
        hasCredentials: r.has_credentials,
        slots,
      };
    });
  }

  /**
   * Registers cabinets from CSV (header id,vendor,slots,venueId). Every bad row is reported (line number, field,
   * message); nothing is imported on a dry run or while any row is bad; otherwise all rows in one transaction.
   */
  async importCsv(input: unknown): Promise<CabinetImportReport> {
    const { csv, dryRun } = validate(CabinetImportRequest, input);
    const lines = csv
      .split(/\r?\n/)
      .map((l, i) => ({ n: i + 1, text: l }))
      .filter((l) => l.text.trim() !== '');
    const issues: FieldProblem[] = [];
    const header = lines.shift();
    if (!header || csvFields(header.text).join(',') !== CSV_HEADER.join(',')) {
      return {
        rows: 0,
        imported: 0,
        issues: [
          { row: 1, field: 'header', code: 'invalid', message: problemText({ field: 'header', code: 'invalid' }) },
        ],
      };
    }
    const rows = lines.map(({ n, text }) => {
      const f = csvFields(text);
      const row = {
        id: f[0] ?? '',
        vendor: f[1] || undefined,
        slots: /^\d+$/.test(f[2] ?? '') ? Number(f[2]) : (f[2] ?? ''),
        venueId: f[3] || undefined,
      };
      const p = schemaProblems(CabinetRegister, row);
      if (f.length !== CSV_HEADER.length) p.add('(line)', 'invalid');
      issues.push(...p.list.map((x) => ({ ...x, row: n })));
      return { n, row: row as CabinetRegister, ok: !p.any };
    });
    const ids = rows.map((r) => r.row.id);
    const taken = await this.d.repo.existing(ids.filter((x) => typeof x === 'string'));
    const venues = new Map<string, boolean>();
    for (const r of rows.filter((x) => x.ok)) {
      if (taken.has(r.row.id) || ids.indexOf(r.row.id) !== rows.indexOf(r))
        issues.push({ row: r.n, field: 'id', code: 'duplicate' });
      const v = r.row.venueId;
      if (v && !venues.has(v)) venues.set(v, await this.d.venueExists(v));
      if (v && !venues.get(v)) issues.push({ row: r.n, field: 'venueId', code: 'notFound' });
    }
    issues.sort((a, b) => a.row! - b.row!);
    const report = (imported: number) => ({
      rows: rows.length,
      imported,
      issues: issues.map((i) => ({ row: i.row, field: i.field, code: i.code, message: problemText(i) })),
    });
    if (dryRun || issues.length) return report(0);
    const at = this.d.clock.now();
    await this.d.db.tx(async () => {
      for (const { row } of rows)
        await this.d.repo.insert(
          { id: row.id, vendor: row.vendor ?? DEFAULT_VENDOR, slots: row.slots, venueId: row.venueId ?? null },
          at,
        );
    });
    return report(rows.length);
  }

  // ---- broker credentials (docs/operations.md "Broker security") --------------------------------------------

  /**
   * Issues a cabinet's credentials, or rotates them: the old ones are refused from now on. Shown once. A cabinet of
   * the TCP family gets a token secret (kept sealed: the server signs with it), any other a broker password (kept
   * as a hash).
   */
  async issueCredentials(
    cabinetId: string,
  ): Promise<{ username: string; password: string; kind: 'broker-password' | 'token-secret' }> {
    const at = this.d.clock.now();
    if ((await this.d.credentials.vendorOf(cabinetId)) === TOKEN_SECRET_VENDOR) {
      try {
        return { username: cabinetId, password: await this.d.tokenSecrets.issue(cabinetId, at), kind: 'token-secret' };
      } catch (err) {
        if (err instanceof SecretsKeyMissing) throw conflict('error.fleet.secretsKeyMissing');
        throw err;
      }
    }
    if (!(await this.d.repo.cabinet(cabinetId))) throw notFound('error.fleet.notFound', { id: cabinetId });
    return {
      username: cabinetId,
      password: await issueCabinetCredentials(this.d.credentials, cabinetId, at),
      kind: 'broker-password',
    };
  }

  /** A Mosquitto broker's password and ACL files: every issued credential, plus the server's own user if given. */
  async mosquittoFiles(prefix: string, server?: { username: string; password: string }) {
    const entries = (await this.d.credentials.all()).map((r) => ({ username: r.cabinet_id, hash: r.password_hash }));
    if (server) entries.unshift({ username: server.username, hash: hashPassword(server.password) });
    return {
      passwd: mosquittoPasswordFile(entries),
      acl: mosquittoAclFile(prefix, server?.username),
      users: entries.length,
    };
  }

  // ---- the inbox's operator actions (docs/cabinet-protocol.md) ------------------------------------------------

  /** Dead (or pending) events with the counts by state, refused messages, quarantined power banks. */
  async inbox(state: 'dead' | 'pending' = 'dead') {
    const [inbox, rejects, quarantined] = [
      await this.d.cabinets.inbox(state),
      await this.d.cabinets.rejects(),
      await this.d.cabinets.quarantined(),
    ];
    return { ...inbox, rejects, quarantined };
  }

  /** Sends a dead event back to processing (after its cause is fixed); false when there is no such dead event. */
  retryEvent(key: string): Promise<boolean> {
    return this.d.cabinets.retryEvent(key, this.d.clock.now());
  }

  /** Registers a quarantined power bank: lendable in the slot it is in; false when it is not quarantined. */
  releasePowerbank(id: string): Promise<boolean> {
    return this.d.cabinets.release(id);
  }
}
