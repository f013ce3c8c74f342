// `npm run bench:query`: how fast the case API answers on a large tenant. A fresh SQLite data dir
// is migrated and its tenant given --cases cases (default 100,000) with their observations,
// devices, techniques, tags, assignees, comments and history, written straight into the database
// in large transactions — rows shaped as grouping and the case workflow write them (title,
// description, score and search text from the same deriveFields). A real server (detection off)
// then serves it on loopback HTTP, and every scenario is requested --requests times, one request
// at a time: POST /v1/cases with the common filters, GET /v1/cases/{id} by id and by number, and
// GET /healthz as the baseline measured in the same run. Every response is checked against the
// seeded data (status, total, page size; each filter's first page id for id). The last stdout
// line is one JSON object {cases, search_p50_ms, search_p99_ms, get_p50_ms, get_p99_ms}.
//
// The server runs in a child process (as in bench:api), not in this one: better-sqlite3 runs each
// query synchronously on the server's event loop, so a pathological query would block an
// in-process client as well and no request could time out. Here a request slower than --timeout
// is abandoned, the server restarted, and the scenario reported as timed out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, type Database } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { createTenant } from '../src/identity/tenant-service.js';
import { createUser } from '../src/identity/user-service.js';
import { createToken } from '../src/identity/token-service.js';
import { allPermissions } from '../src/identity/permissions.js';
import { cliActor } from '../src/identity/principal.js';
import { loadDetection } from '../src/detection/detection-setup.js';
import type { AttackCatalogue } from '../src/detection/attack.js';
import { addContribution, deriveFields, emptyContents } from '../src/cases/case-derive.js';
import { severityForLevel } from '../src/cases/case-score.js';
import type { Criticality } from '../src/storage/schema.js';
import { between, pick, seededRandom, type Random } from '../src/random.js';
import { freePort, spawnTsx, stopChild, waitReady, type Child } from '../test/helpers/processes.js';

interface Flags {
  cases: number;
  requests: number;
  /** Seconds one request may take before it is abandoned (and the server restarted). */
  timeout: number;
  /** Seconds per scenario, after which it stops once it has MIN_REQUESTS measured. */
  budget: number;
  /** Run ANALYZE after seeding (the server never does): shows what planner statistics change. */
  analyze: boolean;
  keep: boolean;
}

const USAGE = 'usage: bench:query [--cases N] [--requests N] [--timeout S] [--budget S] [--analyze] [--keep]';
const TARGET_P99_MS = 20;
const WARMUP_REQUESTS = 10;
const MIN_REQUESTS = 20;
const PAGE = 50;
/** Cases span this many days before the run; the last week holds most open ones. */
const SPAN_DAYS = 180;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { cases: 100_000, requests: 300, timeout: 10, budget: 30, analyze: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--keep' || flag === '--analyze') {
      flags[flag === '--keep' ? 'keep' : 'analyze'] = true;
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || !['--cases', '--requests', '--timeout', '--budget'].includes(flag ?? '')) throw new Error(`unknown or incomplete option ${JSON.stringify(flag)}; ${USAGE}`);
    i++;
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; got ${JSON.stringify(value)}`);
    if (flag === '--cases') flags.cases = number;
    else if (flag === '--requests') flags.requests = number;
    else if (flag === '--timeout') flags.timeout = number;
    else flags.budget = number;
  }
  return flags;
}

// ---- The seeded data, and the model of it the checks compare responses with.

interface SeedUser {
  id: string;
  email: string;
  /** Relative share of the assigned cases. */
  weight: number;
}

interface SeedDevice {
  id: string;
  hostName: string;
  criticality: Criticality;
}

interface RuleChoice {
  id: string;
  title: string;
  author: string | null;
  level: string;
  type: 'detection' | 'correlation';
  tags: string[];
  techniques: string[];
  tactics: string[];
  /** Relative frequency: noisy low rules fire far more often than critical ones. */
  weight: number;
}

interface ModelCase {
  id: string;
  seq: number;
  number: number;
  status: string;
  severity: string;
  score: number;
  assigneeId: string | null;
  tags: string[];
  techniques: string[];
  deviceIds: string[];
  createdAt: number;
  updatedAt: number;
  searchText: string;
  observations: number;
  comments: number;
}

interface Seeded {
  tenantId: number;
  token: string;
  users: SeedUser[];
  devices: SeedDevice[];
  cases: ModelCase[];
  rows: Record<string, number>;
  seconds: number;
  now: number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id shaped as newId() makes them (`case_` + 20 base62), but from the seeded generator. */
function seededId(random: Random, prefix: string): string {
  let out = `${prefix}_`;
  for (let i = 0; i < 20; i++) out += BASE62[Math.floor(random() * 62)];
  return out;
}

/** Index into `weights` with probability proportional to each weight. */
function weighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let roll = random() * total;
  for (let i = 0; i < weights.length; i++) {
    roll -= weights[i]!;
    if (roll < 0) return i;
  }
  return weights.length - 1;
}

const levelWeight: Record<string, number> = { informational: 14, low: 10, medium: 5, high: 2, critical: 0.4 };

/** The bundled rule pack (and its correlations): real titles, levels and ATT&CK techniques. */
function ruleChoices(): { rules: RuleChoice[]; catalogue: AttackCatalogue } {
  const detection = loadDetection({ rulePaths: [], pipelinePath: '' });
  const catalogue = detection.catalogue;
  const choose = (rule: { id: string; title: string; author?: string; level: string; tags: string[] }, type: RuleChoice['type']): RuleChoice => {
    const mapped = catalogue.fromTags(rule.tags);
    return {
      id: rule.id,
      title: rule.title,
      author: rule.author ?? null,
      level: rule.level,
      type,
      tags: rule.tags,
      techniques: mapped.techniques.map((technique) => technique.id),
      tactics: mapped.tactics.map((tactic) => tactic.shortname),
      weight: levelWeight[rule.level] ?? 5,
    };
  };
  const rules = [
    ...detection.compilation.rules.map((rule) => choose(rule, 'detection')),
    ...detection.compilation.correlations.map((rule) => choose(rule, 'correlation')),
  ];
  if (rules.length === 0) throw new Error('the bundled rule pack compiled to no rules');
  return { rules, catalogue };
}

/** 2,000 devices in all. */
const hostFamilies: { prefix: string; count: number; width: number; os: string; criticality: number[] }[] = [
  // criticality weights: low, medium, high, critical
  { prefix: 'web', count: 220, width: 3, os: 'Ubuntu 22.04', criticality: [0, 50, 40, 10] },
  { prefix: 'api', count: 160, width: 3, os: 'Ubuntu 22.04', criticality: [0, 55, 40, 5] },
  { prefix: 'db', count: 60, width: 2, os: 'Debian 12', criticality: [0, 10, 50, 40] },
  { prefix: 'k8s-node', count: 320, width: 3, os: 'Flatcar Container Linux', criticality: [5, 70, 25, 0] },
  { prefix: 'bastion', count: 8, width: 2, os: 'Debian 12', criticality: [0, 0, 60, 40] },
  { prefix: 'mail', count: 12, width: 2, os: 'Debian 12', criticality: [0, 40, 60, 0] },
  { prefix: 'build', count: 40, width: 2, os: 'Ubuntu 24.04', criticality: [10, 70, 20, 0] },
  { prefix: 'ws', count: 1_180, width: 4, os: 'Windows 11', criticality: [40, 55, 5, 0] },
];
const criticalities: Criticality[] = ['low', 'medium', 'high', 'critical'];
const places = [
  ['DE', 'Germany', 'Frankfurt am Main'],
  ['NL', 'Netherlands', 'Amsterdam'],
  ['US', 'United States', 'Ashburn'],
  ['FR', 'France', 'Paris'],
  ['GB', 'United Kingdom', 'London'],
] as const;
const people = ['ana', 'ben', 'chloe', 'dmitri', 'eva', 'farid'];
const peopleWeights = [34, 24, 18, 12, 8, 4];
const resolutions = ['false_positive', 'benign_true_positive', 'true_positive', 'inconclusive'];
const resolutionWeights = [48, 30, 14, 8];

/** Creates the tenant, users and token through the identity code; everything else by bulk insert. */
async function seed(database: Database, count: number, now: number, analyze: boolean): Promise<Seeded> {
  const start = performance.now();
  const db = database.db;
  const tenant = await createTenant(db, { codeName: 'bench-query', name: 'Query benchmark' });
  const tenantId = tenant.id;
  const users: SeedUser[] = [];
  for (const [index, name] of people.entries()) {
    const created = await createUser(db, {
      tenantId,
      email: `${name}@bench.example`,
      name: name[0]!.toUpperCase() + name.slice(1),
      role: index === 0 ? 'admin' : 'analyst',
      password: randomBytes(12).toString('hex'),
      actor: cliActor,
    });
    users.push({ id: created.user.id, email: created.user.email, weight: peopleWeights[index]! });
  }
  const token = await createToken(db, {
    tenantId,
    name: 'bench-query',
    permissions: [...allPermissions],
    expiresAt: null,
    creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
  });

  const { rules, catalogue } = ruleChoices();
  const ruleWeights = rules.map((rule) => rule.weight);
  const random = seededRandom(20_261_120);
  const connection = new SQLite(database.sqlitePath!);
  // Our own connection, for the load only: no fsync per commit; foreign keys checked as the app does.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = OFF');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('foreign_keys = ON');
  const rows: Record<string, number> = {};
  const count1 = (table: string, n = 1) => (rows[table] = (rows[table] ?? 0) + n);

  const insert = {
    device: connection.prepare(
      `INSERT INTO devices (id, tenant_id, host_key, host_name, description, criticality, last_user, endpoint_id, os, kubernetes_namespace, first_seen, last_seen, updated_at)
       VALUES (@id, @tenant_id, @host_key, @host_name, '', @criticality, @last_user, @endpoint_id, @os, @kubernetes_namespace, @first_seen, @last_seen, @updated_at)`,
    ),
    address: connection.prepare(
      `INSERT INTO device_addresses (device_id, ip, tenant_id, scope, country_code, country, city, first_seen, last_seen)
       VALUES (@device_id, @ip, @tenant_id, @scope, @country_code, @country, @city, @first_seen, @last_seen)`,
    ),
    case: connection.prepare(
      `INSERT INTO cases (id, tenant_id, number, title, description, score, severity, severity_manual, status, resolution, closing_comment, assignee_id,
         group_key, observation_count, max_level, rules, techniques, tactics, tags, search_text, merged_into, version, created_at, updated_at,
         first_observation_at, last_observation_at, closed_at)
       VALUES (@id, @tenant_id, @number, @title, @description, @score, @severity, @severity_manual, @status, @resolution, @closing_comment, @assignee_id,
         @group_key, @observation_count, @max_level, @rules, @techniques, @tactics, @tags, @search_text, @merged_into, @version, @created_at, @updated_at,
         @first_observation_at, @last_observation_at, @closed_at)`,
    ),
    observation: connection.prepare(
      `INSERT INTO observations (id, tenant_id, dedupe_key, source, rule_id, rule_title, rule_author, rule_type, level, techniques, tactics, tags, host,
         first_time, last_time, record_seqs, evidence, created_at, created_by)
       VALUES (@id, @tenant_id, @dedupe_key, 'detection', @rule_id, @rule_title, @rule_author, @rule_type, @level, @techniques, @tactics, @tags, @host,
         @first_time, @last_time, @record_seqs, @evidence, @created_at, NULL)`,
    ),
    caseObservation: connection.prepare('INSERT INTO case_observations (observation_id, case_id, tenant_id, added_at) VALUES (?, ?, ?, ?)'),
    caseDevice: connection.prepare('INSERT INTO case_devices (case_id, device_id, tenant_id) VALUES (?, ?, ?)'),
    caseTechnique: connection.prepare('INSERT INTO case_techniques (case_id, technique, tenant_id) VALUES (?, ?, ?)'),
    caseTag: connection.prepare('INSERT INTO case_tags (case_id, tag, tenant_id) VALUES (?, ?, ?)'),
    comment: connection.prepare(
      `INSERT INTO case_comments (id, case_id, tenant_id, author_type, author_id, author_label, body, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, 'user', ?, ?, ?, ?, ?, NULL)`,
    ),
    history: connection.prepare(
      `INSERT INTO case_history (case_id, tenant_id, at, actor_type, actor_id, actor_label, action, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };

  // Devices: ~2k hosts in families, 1–3 addresses each (one private, sometimes public ones located).
  const devices: SeedDevice[] = [];
  connection.transaction(() => {
    for (const family of hostFamilies) {
      for (let n = 0; n < family.count; n++) {
        const hostName = `${family.prefix}-${String(n + 1).padStart(family.width, '0')}`;
        const criticality = criticalities[weighted(random, family.criticality)]!;
        const firstSeen = now - SPAN_DAYS * DAY - between(random, 0, 60) * DAY;
        const device: SeedDevice = { id: seededId(random, 'dev'), hostName, criticality };
        devices.push(device);
        insert.device.run({
          id: device.id,
          tenant_id: tenantId,
          host_key: hostName.toLowerCase(),
          host_name: hostName,
          criticality,
          last_user: family.prefix === 'ws' ? `${pick(random, people)}.${pick(random, ['m', 'k', 's', 'r'])}` : pick(random, ['root', 'deploy', 'www-data', null]),
          endpoint_id: random() < 0.6 ? seededId(random, 'ep') : null,
          os: family.os,
          kubernetes_namespace: family.prefix === 'k8s-node' ? pick(random, ['payments', 'checkout', 'search', 'ingest', 'kube-system']) : null,
          first_seen: firstSeen,
          last_seen: now - between(random, 0, 3 * HOUR),
          updated_at: now - between(random, 0, 3 * HOUR),
        });
        count1('devices');
        const addresses = new Set<string>([`10.${between(random, 0, 255)}.${between(random, 0, 255)}.${between(random, 1, 254)}`]);
        while (random() < 0.35 && addresses.size < 3) addresses.add(`${between(random, 1, 223)}.${between(random, 0, 255)}.${between(random, 0, 255)}.${between(random, 1, 254)}`);
        for (const ip of addresses) {
          const isPrivate = ip.startsWith('10.');
          const place = pick(random, places);
          insert.address.run({
            device_id: device.id,
            ip,
            tenant_id: tenantId,
            scope: isPrivate ? 'private' : 'public',
            country_code: isPrivate ? null : place[0],
            country: isPrivate ? null : place[1],
            city: isPrivate ? null : place[2],
            first_seen: firstSeen,
            last_seen: now - between(random, 0, 6 * HOUR),
          });
          count1('device_addresses');
        }
      }
    }
  })();
  // A few noisy hosts raise most cases (random()^2 skews towards the front of a shuffled list).
  const byNoise = [...devices];
  for (let i = byNoise.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [byNoise[i], byNoise[j]] = [byNoise[j]!, byNoise[i]!];
  }
  const pickDevice = () => byNoise[Math.floor(random() * random() * byNoise.length)]!;

  const cases: ModelCase[] = [];
  const slot = (SPAN_DAYS * DAY) / count;
  const startTime = now - SPAN_DAYS * DAY;
  let recordSeq = 1;
  const BATCH = 5_000;
  for (let from = 0; from < count; from += BATCH) {
    connection.transaction(() => {
      for (let index = from; index < Math.min(count, from + BATCH); index++) {
        const number = index + 1;
        const createdAt = Math.floor(startTime + index * slot + random() * slot * 0.9);
        const age = now - createdAt;
        // Devices: most cases one device; some none (network/app rules without a host); a few merged ones several.
        const shape = random();
        const caseDevices: SeedDevice[] = [];
        if (shape >= 0.03) caseDevices.push(pickDevice());
        if (shape >= 0.98) {
          const extra = between(random, 1, 2);
          for (let k = 0; k < extra; k++) {
            const device = pickDevice();
            if (!caseDevices.includes(device)) caseDevices.push(device);
          }
        }
        // Observations: 1–5, mostly one or two; later ones often repeat the first rule.
        const observationCount = 1 + weighted(random, [40, 25, 15, 12, 8]);
        const firstTime = createdAt - between(random, 1_000, 300_000);
        const contents = emptyContents(number, firstTime);
        const firstRule = rules[weighted(random, ruleWeights)]!;
        const observationIds: string[] = [];
        const observationTimes: number[] = [];
        for (let k = 0; k < observationCount; k++) {
          const rule = k === 0 || caseDevices.length === 0 || random() < 0.55 ? firstRule : rules[weighted(random, ruleWeights)]!;
          const time = k === 0 ? firstTime : Math.min(now - 60_000, firstTime + between(random, 1_000, 12 * HOUR));
          const seqs = rule.type === 'correlation' ? Array.from({ length: between(random, 5, 20) }, () => recordSeq++) : [recordSeq++];
          const lastTime = rule.type === 'correlation' ? time + between(random, 10_000, 300_000) : time;
          const host = caseDevices.length > 0 ? caseDevices[k % caseDevices.length]!.hostName : null;
          const id = seededId(random, 'obs');
          const added = Math.min(now - 1_000, lastTime + between(random, 500, 5_000));
          insert.observation.run({
            id,
            tenant_id: tenantId,
            dedupe_key: rule.type === 'correlation' ? `correlation:${rule.id}:${seqs[0]}` : `rule:${rule.id}:${seqs[0]}`,
            rule_id: rule.id,
            rule_title: rule.title,
            rule_author: rule.author,
            rule_type: rule.type,
            level: rule.level,
            techniques: JSON.stringify(rule.techniques),
            tactics: JSON.stringify(rule.tactics),
            tags: JSON.stringify(rule.tags),
            host,
            first_time: time,
            last_time: lastTime,
            record_seqs: JSON.stringify(seqs),
            evidence: JSON.stringify({
              records: [{ seq: seqs.at(-1), fields: host ? { host, user: pick(random, ['root', 'deploy', 'www-data']) } : { source_ip: `198.51.100.${between(random, 1, 254)}` } }],
              ...(rule.type === 'correlation' ? { correlation: { group: { host: host ?? 'unknown' }, value: seqs.length } } : {}),
            }),
            created_at: added,
          });
          count1('observations');
          observationIds.push(id);
          observationTimes.push(added);
          addContribution(contents, { ruleId: rule.id, ruleTitle: rule.title, level: rule.level, techniques: rule.techniques, tactics: rule.tactics, firstTime: time, lastTime, count: 1 });
        }

        // Workflow: old cases are mostly closed; the last week holds most of the open ones.
        const recent = age < 7 * DAY;
        const status = ['new', 'in_progress', 'on_hold', 'closed'][weighted(random, recent ? [40, 25, 10, 25] : [1.5, 2.5, 1.5, 94.5])]!;
        const assigneeShare = status === 'new' ? 0.08 : status === 'closed' ? 0.85 : 1;
        const assignee = random() < assigneeShare ? users[weighted(random, users.map((user) => user.weight))]! : null;
        const sensitive = caseDevices.some((device) => device.hostName.startsWith('web') || device.hostName.startsWith('db') || device.hostName.startsWith('api'));
        const tags: string[] = [];
        if (random() < (sensitive ? 0.2 : 0.03)) tags.push('pci');
        if (caseDevices.some((device) => !device.hostName.startsWith('ws')) && random() < 0.25) tags.push('prod');
        if (random() < 0.03) tags.push('needs-review');
        if (status === 'closed' && random() < 0.08) tags.push('tuning');
        if (random() < 0.01) tags.push('customer-impact');
        const lastObservation = Math.max(...observationTimes);
        let updatedAt = Math.max(createdAt, lastObservation);
        let closedAt: number | null = null;
        let resolution: string | null = null;
        let mergedInto: string | null = null;
        let closingComment: string | null = null;
        if (status === 'closed') {
          closedAt = Math.min(now - 60_000, Math.max(updatedAt + 60_000, createdAt + between(random, 10 * 60_000, 5 * DAY)));
          updatedAt = closedAt;
          if (random() < 0.02 && cases.length > 0) {
            resolution = 'duplicate';
            mergedInto = cases[Math.max(0, cases.length - between(random, 1, 30))]!.id;
          } else resolution = resolutions[weighted(random, resolutionWeights)]!;
          if (random() < 0.15) closingComment = pick(random, ['Expected admin activity.', 'Scanner from the pentest window.', 'Host reimaged, credentials rotated.', 'Known noisy job; rule tuned.']);
        } else if (status !== 'new') {
          updatedAt = Math.min(now - 30_000, updatedAt + between(random, 60_000, 2 * DAY));
        }

        const derived = deriveFields(contents, caseDevices.map((device) => ({ host_name: device.hostName, criticality: device.criticality })), tags, catalogue);
        const manual = random() < 0.04;
        const severity = manual ? pick(random, ['low', 'medium', 'high', 'critical']) : severityForLevel(derived.max_level);
        const id = seededId(random, 'case');
        const groupKey = caseDevices.length > 0 ? `device:${caseDevices[0]!.id}` : `rule:${firstRule.id}:detection`;
        let version = 1 + (observationCount > 1 ? 1 : 0);
        const history: [number, string, string | null, string, string, string][] = [
          [createdAt, 'system', null, 'grouping', 'created', JSON.stringify({ number, group_key: groupKey })],
          [createdAt, 'system', null, 'grouping', 'observations_added', JSON.stringify({ count: observationCount, observation_ids: observationIds })],
        ];
        const actor = assignee ?? users[0]!;
        if (status !== 'new') {
          version++;
          const changes: Record<string, unknown> = { status: { from: 'new', to: status } };
          if (assignee) changes.assignee = { from: null, to: assignee.id };
          if (resolution) changes.resolution = { from: null, to: resolution };
          history.push([updatedAt, 'user', actor.id, actor.email, 'updated', JSON.stringify(changes)]);
        }
        insert.case.run({
          id,
          tenant_id: tenantId,
          number,
          title: derived.title,
          description: derived.description,
          score: derived.score,
          severity,
          severity_manual: manual ? 1 : 0,
          status,
          resolution,
          closing_comment: closingComment,
          assignee_id: assignee?.id ?? null,
          group_key: groupKey,
          observation_count: derived.observation_count,
          max_level: derived.max_level,
          rules: derived.rules,
          techniques: derived.techniques,
          tactics: derived.tactics,
          tags: JSON.stringify(tags),
          search_text: derived.search_text,
          merged_into: mergedInto,
          version,
          created_at: createdAt,
          updated_at: updatedAt,
          first_observation_at: derived.first_observation_at,
          last_observation_at: derived.last_observation_at,
          closed_at: closedAt,
        });
        count1('cases');
        observationIds.forEach((observationId, k) => insert.caseObservation.run(observationId, id, tenantId, observationTimes[k]));
        count1('case_observations', observationIds.length);
        for (const device of caseDevices) insert.caseDevice.run(id, device.id, tenantId);
        count1('case_devices', caseDevices.length);
        const techniques = JSON.parse(derived.techniques) as string[];
        for (const technique of techniques) insert.caseTechnique.run(id, technique, tenantId);
        count1('case_techniques', techniques.length);
        for (const tag of tags) insert.caseTag.run(id, tag, tenantId);
        count1('case_tags', tags.length);

        // Comments: the closing comment, and now and then a note from the analyst.
        let comments = 0;
        const notes = status !== 'new' && random() < 0.12 ? between(random, 1, 3) : 0;
        for (let k = 0; k < notes + (closingComment ? 1 : 0); k++) {
          const body = k < notes ? pick(random, ['Looking into it.', 'Checked the process tree; parent is the deploy agent.', 'Asked the owner of the host.', 'Isolated the host.']) : closingComment!;
          const at = Math.min(updatedAt, createdAt + (k + 1) * 600_000);
          const commentId = seededId(random, 'cmt');
          insert.comment.run(commentId, id, tenantId, actor.id, actor.email, body, at, at);
          history.push([at, 'user', actor.id, actor.email, 'commented', JSON.stringify({ comment_id: commentId })]);
          comments++;
        }
        count1('case_comments', comments);
        for (const entry of history) insert.history.run(id, tenantId, ...entry);
        count1('case_history', history.length);

        cases.push({
          id,
          seq: number,
          number,
          status,
          severity,
          score: derived.score,
          assigneeId: assignee?.id ?? null,
          tags,
          techniques,
          deviceIds: caseDevices.map((device) => device.id),
          createdAt,
          updatedAt,
          searchText: derived.search_text,
          observations: observationCount,
          comments,
        });
      }
    })();
    // Between transactions, so that Ctrl-C is heard during a long load.
    await new Promise((resolve) => setImmediate(resolve));
  }
  connection.prepare('INSERT INTO case_counters (tenant_id, last_number) VALUES (?, ?)').run(tenantId, count);
  count1('case_counters');
  if (analyze) connection.exec('ANALYZE');
  // Fold the load's WAL into the database file, as the server's own checkpoints would have.
  connection.pragma('wal_checkpoint(TRUNCATE)');
  connection.close();
  return { tenantId, token: token.value, users, devices, cases, rows, seconds: (performance.now() - start) / 1000, now };
}

// ---- Scenarios, and the expected answers from the model.

interface SearchBody {
  status?: string[];
  severity?: string[];
  score_min?: number;
  assignee?: string;
  technique?: string;
  tags?: string[];
  device_id?: string;
  updated_after?: string;
  text?: string;
  sort?: 'created' | 'updated' | 'score';
  limit: number;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Why the response is wrong, or undefined. */
  check: (status: number, body: unknown) => string | undefined;
}

interface Scenario {
  key: string;
  label: string;
  group: 'baseline' | 'search' | 'get';
  /** The request for iteration i (filters rotate among values: devices, assignees, ids). */
  request: (i: number) => Request;
  /** Matching cases (searches): the distinct totals seen. */
  totals?: Set<number>;
}

interface Figures {
  requests: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** A request was abandoned after --timeout; it counts as taking exactly that long (a lower bound). */
  timed_out: boolean;
  latencies: number[];
}

const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null;

function matches(model: ModelCase, body: SearchBody, users: readonly SeedUser[]): boolean {
  if (body.status && !body.status.includes(model.status)) return false;
  if (body.severity && !body.severity.includes(model.severity)) return false;
  if (body.score_min !== undefined && model.score < body.score_min) return false;
  if (body.assignee !== undefined) {
    const user = users.find((candidate) => candidate.email === body.assignee || candidate.id === body.assignee);
    if (!user || model.assigneeId !== user.id) return false;
  }
  if (body.technique !== undefined) {
    const technique = body.technique;
    if (!model.techniques.some((id) => id === technique || id.startsWith(`${technique}.`))) return false;
  }
  if (body.tags && !body.tags.every((tag) => model.tags.includes(tag))) return false;
  if (body.device_id !== undefined && !model.deviceIds.includes(body.device_id)) return false;
  if (body.updated_after !== undefined && !(model.updatedAt > Date.parse(body.updated_after))) return false;
  if (body.text !== undefined && !model.searchText.includes(body.text.trim().toLowerCase())) return false;
  return true;
}

/** The expected total and first page (ids) of a search, from the model; memoised per body. */
function expectation(seeded: Seeded): (body: SearchBody) => { total: number; page: string[] } {
  const memo = new Map<string, { total: number; page: string[] }>();
  return (body) => {
    const key = JSON.stringify(body);
    let hit = memo.get(key);
    if (!hit) {
      const found = seeded.cases.filter((model) => matches(model, body, seeded.users));
      const value = (model: ModelCase) => (body.sort === 'score' ? model.score : body.sort === 'updated' ? model.updatedAt : model.createdAt);
      found.sort((a, b) => value(b) - value(a) || b.seq - a.seq);
      hit = { total: found.length, page: found.slice(0, body.limit).map((model) => model.id) };
      memo.set(key, hit);
    }
    return hit;
  };
}

function scenarios(seeded: Seeded): Scenario[] {
  const expect = expectation(seeded);
  const firstPageChecked = new Set<string>();
  const search = (key: string, label: string, bodyFor: (i: number) => SearchBody): Scenario => {
    const totals = new Set<number>();
    return {
      key,
      label,
      group: 'search',
      totals,
      request: (i) => {
        const body = bodyFor(i);
        const text = JSON.stringify(body);
        return {
          method: 'POST',
          path: '/v1/cases',
          body: text,
          check: (status, response) => {
            if (status !== 200) return `status ${status}`;
            if (!isObject(response) || !Array.isArray(response.cases) || typeof response.total !== 'number') return 'not a case list';
            const expected = expect(body);
            totals.add(expected.total);
            if (response.total !== expected.total) return `total ${response.total}, the seeded data has ${expected.total} matching ${text}`;
            if (response.cases.length !== expected.page.length) return `${response.cases.length} cases on the page, expected ${expected.page.length}`;
            if (!firstPageChecked.has(text)) {
              firstPageChecked.add(text);
              const ids = response.cases.map((item) => (isObject(item) ? item.id : undefined));
              const wrong = ids.findIndex((id, index) => id !== expected.page[index]);
              if (wrong >= 0) return `case ${wrong} on the first page is ${String(ids[wrong])}, expected ${expected.page[wrong]} (${text})`;
            }
            return undefined;
          },
        };
      },
    };
  };
  const random = seededRandom(7_301);
  // Rotating values: 64 devices that hold cases, the analysts, random cases.
  const withCases = [...new Set(seeded.cases.flatMap((model) => model.deviceIds))];
  const deviceIds = Array.from({ length: 64 }, () => pick(random, withCases));
  const assignees = seeded.users.map((user) => user.email);
  const caseAt = (i: number) => seeded.cases[Math.floor(seededRandom(i * 2_654_435_761)() * seeded.cases.length)]!;
  const recent = new Date(seeded.now - DAY).toISOString();
  const get = (key: string, label: string, ref: (model: ModelCase) => string): Scenario => ({
    key,
    label,
    group: 'get',
    request: (i) => {
      const model = caseAt(i + (key === 'get_number' ? 1_000_003 : 0));
      return {
        method: 'GET',
        path: `/v1/cases/${ref(model)}`,
        check: (status, body) => {
          if (status !== 200) return `status ${status}`;
          if (!isObject(body) || body.id !== model.id || body.number !== model.number) return `expected case ${model.id} (#${model.number})`;
          if (!Array.isArray(body.observations) || body.observations.length !== model.observations) return `expected ${model.observations} observations`;
          if (!Array.isArray(body.devices) || body.devices.length !== model.deviceIds.length) return `expected ${model.deviceIds.length} devices`;
          if (!Array.isArray(body.comments) || body.comments.length !== model.comments) return `expected ${model.comments} comments`;
          return undefined;
        },
      };
    },
  });
  return [
    {
      key: 'healthz',
      label: 'GET /healthz (baseline: no auth, no DB)',
      group: 'baseline',
      request: () => ({ method: 'GET', path: '/healthz', check: (status, body) => (status === 200 && isObject(body) && body.status === 'ok' ? undefined : `status ${status}`) }),
    },
    search('default', '{} (newest first)', () => ({ limit: PAGE })),
    search('open', "status ['new','in_progress']", () => ({ status: ['new', 'in_progress'], limit: PAGE })),
    search('new_by_score', "status ['new'], sort score", () => ({ status: ['new'], sort: 'score', limit: PAGE })),
    search('severe', "severity ['high','critical'], score_min 60", () => ({ severity: ['high', 'critical'], score_min: 60, limit: PAGE })),
    search('assignee', 'assignee <email> (6 users)', (i) => ({ assignee: assignees[i % assignees.length]!, limit: PAGE })),
    search('technique', "technique 'T1059' (+ sub-techniques)", () => ({ technique: 'T1059', limit: PAGE })),
    search('tag', "tags ['pci']", () => ({ tags: ['pci'], limit: PAGE })),
    search('device', 'device_id (64 devices)', (i) => ({ device_id: deviceIds[i % deviceIds.length]!, limit: PAGE })),
    search('updated_after', 'updated_after now − 24 h', () => ({ updated_after: recent, limit: PAGE })),
    search('text', "text 'web-0'", () => ({ text: 'web-0', limit: PAGE })),
    get('get_id', 'GET /v1/cases/{id} (random ids)', (model) => model.id),
    get('get_number', 'GET /v1/cases/{number} (random numbers)', (model) => String(model.number)),
  ];
}

// ---- Timing.

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function figures(latencies: number[], seconds: number, timedOut: boolean): Figures {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    requests_per_s: latencies.length / seconds,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    max_ms: sorted[sorted.length - 1] ?? Number.NaN,
    timed_out: timedOut,
    latencies,
  };
}

class RequestTimeout extends Error {}

/**
 * Up to `count` requests, one at a time (fewer once `budgetS` has passed and MIN_REQUESTS are
 * done); the latency runs from sending to the last byte of the body. A request slower than
 * `timeoutMs` ends the scenario.
 */
async function run(base: string, headers: Record<string, string>, scenario: Scenario, count: number, offset: number, limits: { timeoutMs: number; budgetS: number }): Promise<Figures> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    if (i >= MIN_REQUESTS && performance.now() - started > limits.budgetS * 1000) break;
    const request = scenario.request(offset + i);
    const init: RequestInit = {
      method: request.method,
      headers: request.body !== undefined ? { ...headers, 'Content-Type': 'application/json' } : headers,
      signal: AbortSignal.timeout(limits.timeoutMs),
    };
    if (request.body !== undefined) init.body = request.body;
    const t0 = performance.now();
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${base}${request.path}`, init);
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        latencies.push(limits.timeoutMs);
        const result = figures(latencies, (performance.now() - started) / 1000, true);
        throw Object.assign(new RequestTimeout(`${scenario.label}: no answer within ${limits.timeoutMs} ms`), { result });
      }
      throw error;
    }
    latencies.push(performance.now() - t0);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const problem = request.check(status, body);
    if (problem) throw new Error(`${scenario.label}: ${problem}; ${request.method} ${request.path} ${request.body ?? ''} answered ${text.slice(0, 300)}`);
  }
  return figures(latencies, (performance.now() - started) / 1000, false);
}

const pad = (text: string, width: number) => text.padEnd(width);
const num = (value: number, width: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).padStart(width);
const round2 = (value: number) => Number(value.toFixed(2));

/** A latency; `≥` marks a lower bound (the scenario had a request abandoned at the timeout). */
const ms = (value: number, lowerBound: boolean) => ` ${lowerBound ? '≥' : ''}${num(value, 0, 2)}`.padStart(10);

function row(label: string, result: Figures, baselineRps: number, matching: string, baseline = false): string {
  const flag = result.timed_out ? '  TIMED OUT' : !baseline && result.p99_ms > TARGET_P99_MS ? '  > target' : '';
  const rps = num(result.requests_per_s, 8, result.requests_per_s < 10 ? 1 : 0);
  return `${pad(label, 46)}${matching.padStart(9)}${num(result.requests, 6)}${rps}${ms(result.p50_ms, result.timed_out)}${ms(result.p99_ms, result.timed_out)}${ms(result.max_ms, result.timed_out)}${num(result.requests_per_s / baselineRps, 8, 3)}${flag}\n`;
}

/** The 1-minute load average beside the CPU count: other work on the machine shows in the latencies. */
const loadAverage = () => `${os.loadavg()[0]!.toFixed(1)}`;

// ---- The server.

const active = new Set<Child>();
const cleanup: (() => Promise<void>)[] = [];

async function runCleanup(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

interface Server {
  child: Child;
  base: string;
}

/** `sightline serve` on the data dir, detection off, warnings and errors kept. */
async function startServer(dataDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawnTsx('src/cli/run.ts', ['serve', '--data', dataDir, '--port', String(port), '--log-level', 'warn', '--detection', 'off']);
  active.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(child, `${base}/readyz`, 60_000);
  return { child, base };
}

async function stopServer(server: Server, graceMs?: number): Promise<string[]> {
  const { code, killed } = await stopChild(server.child, graceMs);
  active.delete(server.child);
  const notes = [];
  if (killed) notes.push('the server did not exit after SIGTERM and was killed');
  else if (code !== 0 && graceMs === undefined) notes.push(`the server exited with code ${code}`);
  const log = `${server.child.stderr()}${server.child.stdout()}`.trim();
  if (log) {
    const lines = log.split('\n');
    notes.push(`the server logged ${lines.length} line(s) at warn or above; first: ${lines.slice(0, 3).join('\n    ')}`);
  }
  return notes;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  process.stdout.write(
    `case query benchmark: ${flags.cases.toLocaleString('en-US')} cases on SQLite, ${flags.requests} sequential requests per scenario (after ${WARMUP_REQUESTS} warm-up; ` +
      `at most ${flags.budget} s once ${MIN_REQUESTS} are done; ${flags.timeout} s timeout), page size ${PAGE}, Node ${process.version}, ` +
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadAverage()}\n`,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-query-'));
  if (flags.keep) process.stdout.write(`  --keep: the data dir ${dataDir} stays after the run\n`);
  else cleanup.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  // A throwaway operator password, so the server does not generate and print one.
  process.env.SIGHTLINE_ADMIN_PASSWORD = randomBytes(16).toString('hex');

  const database = await openDatabase(loadConfig({ dataDir }, {}));
  let seeded: Seeded;
  try {
    await migrateToLatest(database);
    seeded = await seed(database, flags.cases, Date.now(), flags.analyze);
  } finally {
    await database.close();
  }
  const size = fs.statSync(path.join(dataDir, 'sightline.db')).size;
  const statuses = new Map<string, number>();
  for (const model of seeded.cases) statuses.set(model.status, (statuses.get(model.status) ?? 0) + 1);
  process.stdout.write(
    `  seeded in ${seeded.seconds.toFixed(1)} s (database ${(size / 1024 / 1024).toFixed(0)} MiB, ` +
      `${flags.analyze ? 'then ANALYZE (--analyze; the server never runs it)' : 'no ANALYZE, as the server leaves it'}): ` +
      `${Object.entries(seeded.rows).map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`).join(', ')}\n` +
      `  statuses: ${[...statuses].map(([status, n]) => `${status} ${n.toLocaleString('en-US')}`).join(', ')}; ` +
      `${seeded.users.length} users; a token with all permissions; tenant bench-query\n`,
  );

  let server = await startServer(dataDir);
  cleanup.push(async () => {
    for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  });
  const headers = { Authorization: `Bearer ${seeded.token}` };
  const limits = { timeoutMs: flags.timeout * 1000, budgetS: flags.budget };
  const all = scenarios(seeded);
  // A cold server (JIT, caches) would make the first scenario — the baseline — look slow.
  await run(server.base, headers, all[0]!, 500, 0, limits);
  const results = new Map<string, Figures>();
  const measure = async (scenario: Scenario): Promise<Figures> => {
    try {
      await run(server.base, headers, scenario, WARMUP_REQUESTS, 0, limits);
      return await run(server.base, headers, scenario, flags.requests, WARMUP_REQUESTS, limits);
    } catch (error) {
      if (!(error instanceof RequestTimeout)) throw error;
      // The server is still inside the query; only a new one can answer the next scenario.
      for (const note of await stopServer(server, 0)) if (!note.startsWith('the server did not exit')) process.stdout.write(`note: ${note}\n`);
      server = await startServer(dataDir);
      return (error as RequestTimeout & { result: Figures }).result;
    }
  };
  for (const scenario of all) results.set(scenario.key, await measure(scenario));
  // The baseline again at the end: the spread of the two runs shows how noisy the machine is.
  const baselineAgain = await measure(all[0]!);
  const baselineFirst = results.get('healthz')!;
  const baselineRps = (baselineFirst.requests_per_s + baselineAgain.requests_per_s) / 2;

  process.stdout.write(
    `\n${pad('scenario (POST /v1/cases, limit 50, unless GET)', 46)}${'matching'.padStart(9)}${'n'.padStart(6)}${'req/s'.padStart(8)}` +
      `${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'max ms'.padStart(10)}${'ratio'.padStart(8)}\n`,
  );
  for (const scenario of all) {
    const totals = scenario.totals ? [...scenario.totals] : [];
    const matching = totals.length === 0 ? (scenario.group === 'search' ? '?' : '') : totals.length === 1 ? totals[0]!.toLocaleString('en-US') : `~${Math.round(totals.reduce((a, b) => a + b, 0) / totals.length).toLocaleString('en-US')}`;
    process.stdout.write(row(scenario.label, results.get(scenario.key)!, baselineRps, matching, scenario.group === 'baseline'));
  }
  process.stdout.write(row('GET /healthz again (baseline, 2nd run)', baselineAgain, baselineRps, '', true));
  const pooled = (group: Scenario['group']) => {
    const members = all.filter((scenario) => scenario.group === group).map((scenario) => results.get(scenario.key)!);
    return figures(members.flatMap((result) => result.latencies), 1, members.some((result) => result.timed_out));
  };
  const searchAll = pooled('search');
  const getAll = pooled('get');
  const pooledRow = (label: string, result: Figures) =>
    `${pad(label, 46)}${''.padStart(9)}${num(result.requests, 6)}${''.padStart(8)}${ms(result.p50_ms, result.timed_out)}${ms(result.p99_ms, result.timed_out)}${ms(result.max_ms, result.timed_out)}\n`;
  const over = all.filter((scenario) => scenario.group !== 'baseline' && results.get(scenario.key)!.p99_ms > TARGET_P99_MS).map((scenario) => scenario.key);
  const timedOut = all.filter((scenario) => results.get(scenario.key)!.timed_out).map((scenario) => scenario.key);
  process.stdout.write(
    pooledRow('all searches pooled', searchAll) +
      pooledRow('all GETs pooled', getAll) +
      `matching: cases the filter matches (the response's total; ~ the mean over the rotating values). n: requests measured. ` +
      `ratio: req/s over the mean of the two baseline runs (${Math.round(baselineRps).toLocaleString('en-US')} req/s; they differ by ` +
      `${((Math.abs(baselineFirst.requests_per_s - baselineAgain.requests_per_s) / baselineRps) * 100).toFixed(1)} %)\n` +
      (timedOut.length > 0
        ? `timed out: ${timedOut.join(', ')} — a request got no answer within ${flags.timeout} s, the server was restarted and the scenario's ` +
          `remaining requests skipped (? : no total seen); the abandoned request counts as ${flags.timeout} s, so figures including it are lower bounds (≥)\n`
        : '') +
      `load average at the end ${loadAverage()} on ${os.cpus().length} CPUs (client, server and anything else running share them)\n` +
      `check: every answered request was 200 with the total and page size of the seeded data, each filter's first page in the expected order, ` +
      `each case with its observations, devices and comments: OK\n` +
      `target (p99 ≤ ${TARGET_P99_MS} ms for every search and get): ${over.length === 0 ? 'met' : `not met (${over.join(', ')})`}\n`,
  );
  for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  cleanup.pop();
  process.stdout.write(
    `${JSON.stringify({
      cases: flags.cases,
      search_p50_ms: round2(searchAll.p50_ms),
      search_p99_ms: round2(searchAll.p99_ms),
      get_p50_ms: round2(getAll.p50_ms),
      get_p99_ms: round2(getAll.p99_ms),
    })}\n`,
  );
}

let interrupted = false;
const interrupt = (signal: NodeJS.Signals) => {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write(`${signal}: stopping the server and removing temporary data\n`);
  Promise.all([...active].map((child) => stopChild(child, 2_000)))
    .then(runCleanup)
    .finally(() => process.exit(130));
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

main()
  .catch(async (error: unknown) => {
    process.stderr.write(`bench:query failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await Promise.all([...active].map((child) => stopChild(child)));
    process.exitCode = 1;
  })
  .finally(runCleanup);
