// Settings of the export to object storage (docs/export.md): where files go (an s3:// bucket and
// prefix, an S3-compatible endpoint), the credentials (environment only), how long after an hour
// ends it is written, from which hour a new destination starts, and the findings' format.
import { setting } from './setting-spec.js';
import { duration, httpUrl, text } from './value-parsers.js';

export type FindingsFormat = 'sightline' | 'ocsf';

/** `s3://bucket` or `s3://bucket/prefix`, kept without trailing slashes; empty turns export off. */
export function s3Url(raw: string): string {
  const value = raw.trim().replace(/\/+$/, '');
  if (value === '') return '';
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/[\w!\-.*'()/=]*)?$/.exec(value);
  if (!match)
    throw new Error(
      'must be s3://bucket or s3://bucket/prefix (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens)',
    );
  return value;
}

/** An ISO 8601 time, kept as epoch milliseconds rounded down to its hour; empty: not set. */
export function hourStart(raw: string): number | null {
  if (raw.trim() === '') return null;
  const time = Date.parse(raw.trim());
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw.trim()) || Number.isNaN(time))
    throw new Error('must be an ISO 8601 time such as 2026-11-01T00:00:00Z');
  return time - (time % 3_600_000);
}

function findingsFormat(raw: string): FindingsFormat {
  const value = raw.trim();
  if (value !== 'sightline' && value !== 'ocsf') throw new Error('must be sightline or ocsf');
  return value;
}

export const exportSettings = {
  exportUrl: setting({
    flag: 'export-url',
    env: 'SIGHTLINE_EXPORT_URL',
    default: '',
    parse: s3Url,
    description:
      'Export raw telemetry and findings, per tenant and hour, as NDJSON.gz files with a manifest to this bucket and prefix, such as s3://soc-archive/sightline (see docs/export.md). Empty: no export.',
  }),
  exportEndpoint: setting({
    flag: 'export-endpoint',
    env: 'SIGHTLINE_EXPORT_ENDPOINT',
    default: '',
    parse: (raw: string) => (raw.trim() === '' ? '' : httpUrl(raw)),
    description:
      'The S3-compatible server to export to (MinIO, Ceph, SeaweedFS, Garage, …), such as https://minio.internal:9000; requests name the bucket in the path. Empty: Amazon S3.',
  }),
  exportRegion: setting({
    flag: 'export-region',
    env: 'SIGHTLINE_EXPORT_REGION',
    default: 'us-east-1',
    parse: text,
    description: "The bucket's region, used in request signatures.",
  }),
  exportAccessKeyId: setting({
    flag: 'export-access-key-id',
    secret: true,
    env: 'SIGHTLINE_EXPORT_ACCESS_KEY_ID',
    default: '',
    parse: text,
    description:
      "Access key id for the export (environment only). Empty: the AWS SDK's default credentials (AWS_ACCESS_KEY_ID, a profile, an instance role).",
  }),
  exportSecretAccessKey: setting({
    flag: 'export-secret-access-key',
    secret: true,
    env: 'SIGHTLINE_EXPORT_SECRET_ACCESS_KEY',
    default: '',
    parse: text,
    description: 'Secret access key for the export (environment only), with --export-access-key-id.',
  }),
  exportDelay: setting({
    flag: 'export-delay',
    env: 'SIGHTLINE_EXPORT_DELAY',
    default: 900_000,
    parse: duration(0, 86_400_000),
    description:
      'How long after an hour ends its files are written, so that records still on their way (a forwarder retrying, a scale-out worker catching up) are in them, such as 15m.',
  }),
  exportSince: setting({
    flag: 'export-since',
    env: 'SIGHTLINE_EXPORT_SINCE',
    default: null as number | null,
    parse: hourStart,
    description:
      'The first hour a new destination receives, as an ISO 8601 time, to export history still retained. Empty: the hour the export first runs. Once a destination has started, it carries on from where it got to.',
  }),
  exportFindings: setting({
    flag: 'export-findings',
    env: 'SIGHTLINE_EXPORT_FINDINGS',
    default: 'sightline',
    parse: findingsFormat,
    description:
      "The findings files' format: sightline (observations as the API shows them) or ocsf (OCSF Detection Findings, class 2004).",
  }),
};
