// A real S3-compatible server for export tests: s3rver (the S3 REST API over a directory) on a
// free loopback port, with one bucket, refusing requests signed with a key id other than its
// one account's (it does not recompute SigV4 signatures, so a wrong secret passes); and
// the official AWS SDK client to read back what was written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

/** s3rver's one account: requests signed with another key id are refused. */
export const S3_ACCESS_KEY_ID = 'S3RVER';
export const S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Every key in the bucket under `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
  get(key: string): Promise<Buffer>;
  /** A gzipped NDJSON object's lines, parsed. */
  lines(key: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3Server(bucket: string): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const get = async (key: string) => {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  };
  return {
    endpoint,
    bucket,
    keys: async (prefix = '') => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((entry) => entry.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    get,
    lines: async (key) =>
      gunzipSync(await get(key))
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    close: async () => {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
