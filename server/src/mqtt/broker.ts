// The embedded MQTT broker (Aedes) for a single-process deployment. It listens on its own port (MQTT_PORT,
// default 18830: 1883 is often taken by a system Mosquitto) for real cabinets and tools, and in-process clients
// (the cabinet link, the simulator) connect over an in-memory stream, no port at all.
import net from 'node:net';
import { Duplex } from 'node:stream';
import { Aedes } from 'aedes';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';

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
  pair.push(make(() => pair[1]!), make(() => pair[0]!));
  return [pair[0]!, pair[1]!];
}

export interface EmbeddedBroker extends MqttConnector {
  readonly port: number | null;
  close(): Promise<void>;
}

export async function startEmbeddedBroker(opts: { port: number | null; host?: string }): Promise<EmbeddedBroker> {
  const broker = await Aedes.createBroker();
  let server: net.Server | null = null;
  if (opts.port !== null) {
    server = net.createServer(broker.handle);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(opts.port!, opts.host ?? '0.0.0.0', () => resolve());
    });
  }
  const port = server ? (server.address() as net.AddressInfo).port : null;
  return {
    port,
    connect(clientOpts) {
      return new mqtt.MqttClient(() => {
        const [client, brokerSide] = duplexPair();
        broker.handle(brokerSide);
        return client;
      }, { protocolVersion: 4, reconnectPeriod: 1000, ...clientOpts });
    },
    describe: () => (port ? `embedded Aedes on mqtt://0.0.0.0:${port}` : 'embedded Aedes (in-process only)'),
    async close() {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

export function externalBroker(url: string): MqttConnector {
  return {
    connect: (opts) => mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 1000, ...opts }),
    describe: () => `external broker ${url}`,
  };
}
