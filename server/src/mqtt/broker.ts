// The embedded MQTT broker (Aedes) for a single-process deployment. It listens on its own port (MQTT_PORT,
// default PORT + 10750, so 18830 beside 8080: 1883 is often taken by a system Mosquitto) on MQTT_HOST (default 127.0.0.1) for real cabinets and
// tools, and in-process clients (the cabinet link, the simulator) connect over an in-memory stream, no port at all.
// With `auth` (main.ts always passes it) every network client is authenticated and held to its topic rules.
import net from 'node:net';
import { Duplex } from 'node:stream';
import { Aedes } from 'aedes';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { cabinetMay, validCabinetId } from '../modules/cabinets/credentials.ts';

export interface MqttConnector {
  /** A connected-or-connecting client; the caller ends it. */
  connect(opts: IClientOptions): MqttClient;
  describe(): string;
}

/** Two streams wired back to back: what one writes, the other reads. */
function duplexPair(): [Duplex, Duplex] {
  const make = (peer: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk, _enc, cb) {
        peer().push(chunk);
        cb();
      },
      final(cb) {
        peer().push(null);
        cb();
      },
      destroy(err, cb) {
        const p = peer();
        if (!p.destroyed) p.destroy();
        cb(err);
      },
    });
  const pair: Duplex[] = [];
  pair.push(
    make(() => pair[1]!),
    make(() => pair[0]!),
  );
  return [pair[0]!, pair[1]!];
}

export interface EmbeddedBroker extends MqttConnector {
  readonly port: number | null;
  /** The address the port listens on. */
  readonly host: string;
  close(): Promise<void>;
}

/**
 * Who may connect to the embedded broker over the network, and what they may do: every network client is a
 * cabinet (username = cabinet id, password issued by `npm run cabinet:credentials`) restricted to its own topics
 * (modules/cabinets/credentials.ts). The server's own clients (the cabinet link, the demo simulator) connect over
 * an in-memory stream that no network client can open; they are the only unrestricted ones.
 */
export interface BrokerAuth {
  prefix: string;
  /** Whether `password` is the credential issued to cabinet `cabinetId`. */
  verifyCabinet(cabinetId: string, password: string): Promise<boolean>;
  /** Topics a vendor family's cabinet may use besides this protocol's (vendors/a8: /powerbank/{uuid}/user/…). */
  vendorMay?: (op: 'publish' | 'subscribe', cabinetId: string, topic: string) => boolean;
}

type Role = { kind: 'internal' } | { kind: 'cabinet'; id: string };
const roles = new WeakMap<object, Role>();

export async function startEmbeddedBroker(opts: {
  port: number | null;
  host?: string;
  auth?: BrokerAuth;
}): Promise<EmbeddedBroker> {
  const internal = new WeakSet<object>();
  const auth = opts.auth;
  const broker = await Aedes.createBroker(
    auth
      ? {
          authenticate(client, username, password, done) {
            if (internal.has(client.conn)) {
              roles.set(client, { kind: 'internal' });
              return done(null, true);
            }
            const id = username ?? '';
            if (!validCabinetId(id) || !password)
              return done(Object.assign(new Error('bad credentials'), { returnCode: 4 }) as never, false);
            auth.verifyCabinet(id, password.toString('utf8')).then(
              (ok) => {
                if (!ok) return done(Object.assign(new Error('bad credentials'), { returnCode: 4 }) as never, false);
                roles.set(client, { kind: 'cabinet', id });
                done(null, true);
              },
              (err: unknown) =>
                done(
                  Object.assign(err instanceof Error ? err : new Error(String(err)), { returnCode: 3 }) as never,
                  false,
                ),
            );
          },
          authorizePublish(client, packet, cb) {
            const role = client ? roles.get(client) : { kind: 'internal' as const };
            if (role?.kind === 'internal') return cb(null);
            if (role?.kind === 'cabinet' && cabinetMay('publish', auth.prefix, role.id, packet.topic)) return cb(null);
            if (role?.kind === 'cabinet' && auth.vendorMay?.('publish', role.id, packet.topic)) return cb(null);
            cb(new Error(`not allowed to publish ${packet.topic}`)); // MQTT 3.1.1: the client is disconnected
          },
          authorizeSubscribe(client, sub, cb) {
            const role = roles.get(client);
            if (role?.kind === 'internal') return cb(null, sub);
            if (role?.kind === 'cabinet' && cabinetMay('subscribe', auth.prefix, role.id, sub.topic))
              return cb(null, sub);
            if (role?.kind === 'cabinet' && auth.vendorMay?.('subscribe', role.id, sub.topic)) return cb(null, sub);
            cb(null, null); // refused: SUBACK 0x80 (Aedes: a null subscription negates it)
          },
        }
      : {},
  );
  let server: net.Server | null = null;
  // Loopback unless configured (MQTT_HOST): cabinets on the network need MQTT_HOST=0.0.0.0 and their credentials.
  const host = opts.host ?? '127.0.0.1';
  if (opts.port !== null) {
    server = net.createServer(broker.handle);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(opts.port!, host, () => resolve());
    });
  }
  const port = server ? (server.address() as net.AddressInfo).port : null;
  return {
    port,
    host: server ? (server.address() as net.AddressInfo).address : host,
    connect(clientOpts) {
      return new mqtt.MqttClient(
        () => {
          const [client, brokerSide] = duplexPair();
          internal.add(brokerSide);
          broker.handle(brokerSide);
          return client;
        },
        { protocolVersion: 4, reconnectPeriod: 1000, ...clientOpts },
      );
    },
    describe: () =>
      port
        ? `embedded Aedes on mqtt://${host}:${port}${auth ? ' (cabinets authenticated, topic rules enforced)' : ''}`
        : 'embedded Aedes (in-process only)',
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

/** An external broker (MQTT_URL); `credentials` are the server's own (MQTT_USERNAME / MQTT_PASSWORD). */
export function externalBroker(url: string, credentials: { username?: string; password?: string } = {}): MqttConnector {
  const creds = credentials.username ? { username: credentials.username, password: credentials.password } : {};
  return {
    connect: (opts) => {
      const client = mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 1000, ...creds, ...opts });
      // TCP_NODELAY on every connection (mqtt.js leaves Nagle on): a publish (an eject) otherwise waits, while an
      // earlier small packet (a PUBACK) is unacknowledged, for the broker's delayed ACK, up to 40 ms on Linux.
      const noDelay = () => (client.stream as Partial<net.Socket> | undefined)?.setNoDelay?.(true);
      noDelay();
      client.on('connect', noDelay);
      return client;
    },
    describe: () => `external broker ${url}`,
  };
}
