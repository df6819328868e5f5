// The media store on any S3-compatible service (AWS S3, MinIO, Ceph, R2, …) through the AWS SDK: PutObject,
// GetObject, DeleteObject on one bucket. Configured by MEDIA_S3_BUCKET, MEDIA_S3_REGION, MEDIA_S3_ENDPOINT (for a
// non-AWS service), MEDIA_S3_FORCE_PATH_STYLE, MEDIA_S3_ACCESS_KEY_ID / MEDIA_S3_SECRET_ACCESS_KEY (else the SDK's
// own credential chain).
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { LocalMediaStore, type MediaStore, type StoredObject } from './store.ts';

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export class S3MediaStore implements MediaStore {
  private readonly client: S3Client;
  constructor(private readonly s: S3Settings) {
    this.client = new S3Client({
      region: s.region,
      endpoint: s.endpoint,
      forcePathStyle: s.forcePathStyle,
      credentials: s.credentials,
      // Checksums only where S3 requires them: S3-compatible stores differ in the optional ones they accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.s.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        CacheControl: 'public, max-age=31536000, immutable',
      }),
    );
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.s.bucket, Key: key }));
      if (!res.Body) return undefined;
      return {
        bytes: await res.Body.transformToByteArray(),
        contentType: res.ContentType ?? 'application/octet-stream',
      };
    } catch (e) {
      if (e instanceof S3ServiceException && (e.name === 'NoSuchKey' || e.$metadata.httpStatusCode === 404))
        return undefined;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.s.bucket, Key: key }));
  }

  destroy() {
    this.client.destroy();
  }
}

/** The media store the environment configures: S3 when MEDIA_S3_BUCKET is set, else undefined (the local folder). */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings | undefined {
  if (!env.MEDIA_S3_BUCKET) return undefined;
  const id = env.MEDIA_S3_ACCESS_KEY_ID;
  const secret = env.MEDIA_S3_SECRET_ACCESS_KEY;
  return {
    bucket: env.MEDIA_S3_BUCKET,
    region: env.MEDIA_S3_REGION ?? 'us-east-1',
    endpoint: env.MEDIA_S3_ENDPOINT || undefined,
    forcePathStyle: env.MEDIA_S3_FORCE_PATH_STYLE === 'true' || env.MEDIA_S3_FORCE_PATH_STYLE === '1',
    credentials: id && secret ? { accessKeyId: id, secretAccessKey: secret } : undefined,
  };
}

/** The store the environment configures: S3 when MEDIA_S3_BUCKET is set, else the folder MEDIA_DIR (default data/media). */
export function mediaStoreFromEnv(env: NodeJS.ProcessEnv): MediaStore {
  const s3 = s3SettingsFromEnv(env);
  if (s3) return new S3MediaStore(s3);
  return new LocalMediaStore(env.MEDIA_DIR || 'data/media');
}
