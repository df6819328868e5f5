// Which vendor gateways a process runs (docs/operations.md "Vendor cabinets"): none unless configured.
//   VENDOR_A8_PREFIX      cabinets of the 0xA8 family (MQTT, same broker) are cabinets {prefix}{uuid}, e.g. VL-
//   VENDOR_TCP_PORT       the TCP family's server port; each cabinet signs with the secret issued for it (sealed
//                         under CABINET_SECRETS_KEY), or, having none, with VENDOR_TCP_SECRET if set
//   VENDOR_TCP_HOST       its address (default 0.0.0.0), VENDOR_TCP_PREFIX its cabinets' id prefix (default BX-)
//   VENDOR_A8_SIGN_KEY    turns on the 0xA8 family's HTTP registration, with VENDOR_A8_BROKER (host:port told to them)
import type { MqttConnector } from '../../../mqtt/broker.ts';
import type { Logger } from '../link.ts';
import { A8Gateway } from './a8/gateway.ts';
import type { EjectLedger, VendorGateway } from './gateway.ts';
import { TcpGateway } from './tcp60/gateway.ts';

export function vendorGatewaysFromEnv(
  env: NodeJS.ProcessEnv,
  d: {
    connector: MqttConnector;
    prefix: string;
    sharedGroup?: string;
    log: Logger;
    now?: () => number;
    /** The TCP cabinets' own token secrets (modules/cabinets/token-secrets.ts); absent when no key seals them. */
    tokenSecrets?: { secretOf(cabinetId: string): Promise<string | null> };
    /** Ejects sent and not answered yet, kept in the database (vendor-ejects-repository.ts). */
    ejects?: EjectLedger;
  },
): VendorGateway[] {
  const out: VendorGateway[] = [];
  if (env.VENDOR_A8_PREFIX)
    out.push(
      new A8Gateway({
        connector: d.connector,
        idPrefix: env.VENDOR_A8_PREFIX,
        sharedGroup: d.sharedGroup,
        log: d.log,
        now: d.now,
        ejects: d.ejects,
      }),
    );
  if (env.VENDOR_TCP_PORT) {
    const port = Number(env.VENDOR_TCP_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`VENDOR_TCP_PORT is not a port: ${env.VENDOR_TCP_PORT}`);
    if (!env.VENDOR_TCP_SECRET && !d.tokenSecrets) {
      throw new Error(
        'VENDOR_TCP_PORT is set but neither CABINET_SECRETS_KEY (per-cabinet token secrets) nor VENDOR_TCP_SECRET (a shared one) is',
      );
    }
    out.push(
      new TcpGateway({
        port,
        host: env.VENDOR_TCP_HOST || '0.0.0.0',
        secret: env.VENDOR_TCP_SECRET || undefined,
        secrets: d.tokenSecrets,
        idPrefix: env.VENDOR_TCP_PREFIX || 'BX-',
        log: d.log,
        now: d.now,
        ejects: d.ejects,
        bridge: { connector: d.connector, prefix: d.prefix },
      }),
    );
  }
  return out;
}

/** The 0xA8 HTTP registration's settings, or undefined when it is off. */
export function a8RegistrationFromEnv(env: NodeJS.ProcessEnv) {
  if (!env.VENDOR_A8_SIGN_KEY) return undefined;
  if (!env.VENDOR_A8_PREFIX) throw new Error('VENDOR_A8_SIGN_KEY is set but VENDOR_A8_PREFIX is not');
  const m = /^([^:\s]+):(\d{1,5})$/.exec(env.VENDOR_A8_BROKER ?? '');
  if (!m)
    throw new Error('VENDOR_A8_SIGN_KEY needs VENDOR_A8_BROKER=host:port (the broker address the cabinets are given)');
  return {
    idPrefix: env.VENDOR_A8_PREFIX,
    signKey: env.VENDOR_A8_SIGN_KEY,
    broker: { host: m[1]!, port: Number(m[2]) },
  };
}
