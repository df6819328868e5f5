// The whole product in this process for a browser test: the server's own test build (fresh database,
// private MQTT topics, the cabinet simulator, a clock the test moves) serving the built app and demo pages
// on an ephemeral port.
import { build, type Built } from '../../server/test/helper.ts';

export interface RunningProduct extends Built {
  base: string;
}

export async function startProduct(): Promise<RunningProduct> {
  const built = await build({ frontEnd: 'dist' });
  try {
    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    return { ...built, base };
  } catch (e) {
    await built.close();
    throw e;
  }
}
