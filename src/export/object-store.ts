// Where exported files go: an S3 bucket, or any server speaking the S3 API, through the AWS SDK.
// Requests name the bucket in the path on a configured endpoint (what S3-compatible servers
// expect) and carry a checksum only where the operation requires one, which every such server
// accepts; each object is written whole in one PUT.
import { PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Writes one object; resolves once the server has it. */
export interface ObjectStore {
  /** What the files are written under, for logs and the manifest: `s3://bucket/prefix`. */
  readonly url: string;
  /** The key of `name` under the prefix. */
  key(name: string): string;
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
}

export interface S3Settings {
  /** `s3://bucket` or `s3://bucket/prefix`. */
  url: string;
  /** An S3-compatible server's base URL; empty: Amazon S3. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export function s3ObjectStore(settings: S3Settings): ObjectStore & { close(): void } {
  const { bucket, prefix } = splitS3Url(settings.url);
  const config: S3ClientConfig = {
    region: settings.region,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  };
  if (settings.endpoint !== '') Object.assign(config, { endpoint: settings.endpoint, forcePathStyle: true });
  if (settings.accessKeyId !== '')
    config.credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey };
  const client = new S3Client(config);
  return {
    url: settings.url,
    key: (name) => (prefix === '' ? name : `${prefix}/${name}`),
    put: async (key, body, contentType) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
    },
    close: () => client.destroy(),
  };
}

export function splitS3Url(url: string): { bucket: string; prefix: string } {
  const rest = url.replace(/^s3:\/\//, '');
  const slash = rest.indexOf('/');
  return slash === -1 ? { bucket: rest, prefix: '' } : { bucket: rest.slice(0, slash), prefix: rest.slice(slash + 1) };
}
