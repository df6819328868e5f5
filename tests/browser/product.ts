// The whole product in this process for a browser test: the server's own test build (fresh database,
// private MQTT topics, the cabinet simulator, a clock the test moves) serving the built app and demo pages
// on an ephemeral port.
import { build, type Built, type BuildOptions } from '../../server/test/helper.ts';

export interface RunningProduct extends Built {
  base: string;
}

export async function startProduct(opts: Omit<BuildOptions, 'frontEnd'> = {}): Promise<RunningProduct> {
  const built = await build({ ...opts, frontEnd: 'dist' });
  try {
    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    return { ...built, base };
  } catch (e) {
    await built.close();
    throw e;
  }
}
