// Where the back office's images live (docs/operations.md "Images"): a storage adapter with one small interface.
// By default a local folder (MEDIA_DIR, default data/media); any S3-compatible store when MEDIA_S3_BUCKET is set
// (s3.ts). Either way the server serves them back at /media/<key> (routes.ts), so the URL never depends on the store.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

export interface StoredObject {
  bytes: Uint8Array;
  contentType: string;
}

export interface MediaStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The object, or undefined when there is none under the key. */
  get(key: string): Promise<StoredObject | undefined>;
  delete(key: string): Promise<void>;
}

/** A key of ours: path segments of letters, digits, dot, dash and underscore, never `..`. */
export const MEDIA_KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}\/){0,4}[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

export const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** Files in a folder; the content type is the key's extension (keys are made by images.ts with one). */
export class LocalMediaStore implements MediaStore {
  private readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    if (!MEDIA_KEY.test(key)) throw new Error(`not a media key: ${key}`);
    const p = join(this.root, key);
    if (!p.startsWith(this.root + sep)) throw new Error(`not a media key: ${key}`);
    return p;
  }

  async put(key: string, bytes: Uint8Array, _contentType?: string): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, bytes);
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const bytes = await readFile(this.path(key)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'EISDIR') return undefined;
      throw e;
    });
    return bytes && { bytes, contentType: CONTENT_TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream' };
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
