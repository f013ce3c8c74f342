// One tenant's hour written to object storage: its raw records (as the API shows them, each
// record exactly as stored) and its findings, as NDJSON.gz parts of bounded size, then a
// manifest naming every part with its count, size and SHA-256. The manifest is written last: a
// reader takes an hour whose manifest exists as complete. Keys are fixed by tenant, hour and
// part number, so an hour written again (after a restart) replaces its files, never doubles them.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Db } from '../storage/database.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { FindingsFormat } from '../config/export-settings.js';
import { stringifyWithRawJson } from '../core/exact-json.js';
import { presentRecords } from '../telemetry/telemetry-service.js';
import { findingSource, presentObservation } from '../observations/observation-service.js';
import { observationFinding } from '../webhooks/ocsf-findings.js';
import type { ObjectStore } from './object-store.js';
import { readFindingPage, readRecordPage, type HourSpan } from './export-reader.js';

const compress = promisify(gzip);

export const HOUR_MS = 3_600_000;
export const MANIFEST_FORMAT = 'sightline-export/1';

export interface HourExportDeps {
  db: Db;
  store: ObjectStore;
  catalogue: AttackCatalogue;
  findings: FindingsFormat;
  /** Uncompressed bytes after which a part is closed and the next begun. */
  partBytes: number;
  /** Rows read per query. */
  pageSize: number;
}

export interface ExportedFile {
  key: string;
  kind: 'telemetry' | 'findings';
  records: number;
  bytes: number;
  sha256: string;
}

export interface HourExport {
  records: number;
  findings: number;
  files: ExportedFile[];
}

/** The folder of a tenant's hour under the prefix: `tenant=acme/date=2026-12-03/hour=14`. */
export function hourFolder(codeName: string, hour: number): string {
  const iso = new Date(hour).toISOString();
  return `tenant=${codeName}/date=${iso.slice(0, 10)}/hour=${iso.slice(11, 13)}`;
}

export async function exportTenantHour(
  deps: HourExportDeps,
  tenant: { id: number; code_name: string },
  hour: number,
): Promise<HourExport> {
  const span: HourSpan = { tenantId: tenant.id, from: hour, until: hour + HOUR_MS };
  const folder = hourFolder(tenant.code_name, hour);
  const telemetry = new PartWriter(deps, `${folder}/telemetry`, 'telemetry');
  for (let after: { receivedAt: number; seq: number } | undefined, page; ;) {
    page = await readRecordPage(deps.db, span, after, deps.pageSize);
    const views = presentRecords(page);
    for (const view of views) await telemetry.add(stringifyWithRawJson(view));
    const last = page.at(-1);
    if (!last || page.length < deps.pageSize) break;
    after = { receivedAt: last.received_at, seq: last.seq };
  }
  const findings = new PartWriter(deps, `${folder}/findings`, 'findings');
  for (let after: { createdAt: number; seq: number } | undefined, page; ;) {
    page = await readFindingPage(deps.db, span, after, deps.pageSize);
    for (const row of page) await findings.add(findingLine(deps, row, tenant.code_name));
    const last = page.at(-1);
    if (!last || page.length < deps.pageSize) break;
    after = { createdAt: last.created_at, seq: last.seq };
  }
  const files = [...(await telemetry.finish()), ...(await findings.finish())];
  const done: HourExport = { records: telemetry.count, findings: findings.count, files };
  if (files.length > 0) await writeManifest(deps, tenant.code_name, hour, folder, done);
  return done;
}

function findingLine(deps: HourExportDeps, row: Parameters<typeof presentObservation>[0], codeName: string): string {
  const view = presentObservation(row, deps.catalogue);
  if (deps.findings === 'sightline') return JSON.stringify(view);
  const about = { uid: view.id, time: Date.parse(view.created_at), code: 'observation' };
  return JSON.stringify(observationFinding(findingSource(view), about, codeName));
}

async function writeManifest(
  deps: HourExportDeps,
  codeName: string,
  hour: number,
  folder: string,
  done: HourExport,
): Promise<void> {
  const manifest = {
    format: MANIFEST_FORMAT,
    tenant: codeName,
    hour: new Date(hour).toISOString(),
    until: new Date(hour + HOUR_MS).toISOString(),
    generated_at: new Date().toISOString(),
    records: done.records,
    findings: done.findings,
    findings_format: deps.findings,
    files: done.files.map((file) => ({ ...file, format: 'ndjson.gz' })),
  };
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  await deps.store.put(deps.store.key(`${folder}/manifest.json`), body, 'application/json');
}

/** Lines gathered into parts of about `partBytes`, each compressed and written as it closes. */
class PartWriter {
  count = 0;
  private lines: string[] = [];
  private size = 0;
  private readonly files: ExportedFile[] = [];

  constructor(
    private readonly deps: HourExportDeps,
    private readonly stem: string,
    private readonly kind: ExportedFile['kind'],
  ) {}

  async add(line: string): Promise<void> {
    this.lines.push(line);
    this.size += Buffer.byteLength(line) + 1;
    this.count += 1;
    if (this.size >= this.deps.partBytes) await this.flush();
  }

  async finish(): Promise<ExportedFile[]> {
    await this.flush();
    return this.files;
  }

  private async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    const body = await compress(Buffer.from(`${this.lines.join('\n')}\n`));
    const number = String(this.files.length + 1).padStart(4, '0');
    const key = this.deps.store.key(`${this.stem}-${number}.ndjson.gz`);
    await this.deps.store.put(key, body, 'application/gzip');
    const records = this.lines.length;
    this.files.push({ key, kind: this.kind, records, bytes: body.length, sha256: sha256(body) });
    this.lines = [];
    this.size = 0;
  }
}

function sha256(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}
