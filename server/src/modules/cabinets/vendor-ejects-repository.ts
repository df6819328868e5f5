// The ejects vendor gateways have sent and not yet seen answered (vendor_ejects): what survives a gateway process
// killed between sending an eject and storing its outcome (vendors/gateway.ts `EjectLedger`).
import type { Queryable } from '../../db/db.ts';
import type { EjectLedger, SentEject } from './vendors/gateway.ts';

export class VendorEjectsRepository implements EjectLedger {
  constructor(private readonly db: Queryable) {}

  async sent(e: SentEject) {
    await this.db.query(
      `insert into vendor_ejects (command_id, cabinet_id, slot, powerbank_id, sent_at) values ($1,$2,$3,$4,$5)
       on conflict (command_id) do nothing`,
      [e.commandId, e.cabinetId, e.slot, e.powerbankId, e.at],
    );
  }

  async find(commandId: string) {
    const { rows } = await this.db.query<Row>('select * from vendor_ejects where command_id = $1', [commandId]);
    return rows[0] ? toSent(rows[0]) : undefined;
  }

  /** The cabinet's ejects still without an outcome; older than `since`: forgotten (their TTL is long over). */
  async open(cabinetId: string, since: Date) {
    await this.db.query('delete from vendor_ejects where cabinet_id = $1 and sent_at < $2', [cabinetId, since]);
    const { rows } = await this.db.query<Row>(
      'select * from vendor_ejects where cabinet_id = $1 order by sent_at, command_id',
      [cabinetId],
    );
    return rows.map(toSent);
  }

  async settled(commandId: string) {
    await this.db.query('delete from vendor_ejects where command_id = $1', [commandId]);
  }
}

interface Row {
  command_id: string;
  cabinet_id: string;
  slot: number | null;
  powerbank_id: string | null;
  sent_at: Date;
}
const toSent = (r: Row): SentEject => ({
  commandId: r.command_id,
  cabinetId: r.cabinet_id,
  slot: r.slot,
  powerbankId: r.powerbank_id,
  at: new Date(r.sent_at),
});
