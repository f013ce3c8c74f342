// bench:query's seeding: the tenant, users and token through the identity code, then ~2,000
// devices and the cases (observations, devices, techniques, tags, assignees, comments, history)
// by bulk insert, rows shaped as grouping and the case workflow write them (title, description,
// score and search text from the same deriveFields). It returns the model of every case.
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/storage/database.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { createToken } from '../../src/identity/tokens/token-service.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { cliActor } from '../../src/identity/principal.js';
import { deriveFields } from '../../src/cases/case-derive.js';
import { severityForLevel } from '../../src/cases/case-score.js';
import { filedTechniques } from '../../src/cases/case-store.js';
import { between, pick, seededRandom } from '../../src/core/random.js';
import {
  criticalities,
  DAY,
  HOUR,
  hostFamilies,
  people,
  peopleWeights,
  places,
  resolutions,
  resolutionWeights,
  ruleChoices,
  seededId,
  SPAN_DAYS,
  weighted,
  type ModelCase,
  type Seeded,
  type SeedDevice,
  type SeedUser,
} from './query-model.js';
import { openSink } from './query-sink.js';
import { seedComments, seedObservations, type CaseSeed, type HistoryRow, type Load } from './query-seed-case.js';
import { at } from '../common/checked.js';

/** The tenant, its users (ana … farid, weighted as assignees) and a token with every permission, through the identity code. */
async function seedIdentity(db: Database['db']): Promise<{ tenantId: number; users: SeedUser[]; token: string }> {
  const tenant = await createTenant(db, { codeName: 'bench-query', name: 'Query benchmark' });
  const tenantId = tenant.id;
  const users: SeedUser[] = [];
  for (const [index, name] of people.entries()) {
    const created = await createUser(db, {
      tenantId,
      email: `${name}@bench.example`,
      name: name.charAt(0).toUpperCase() + name.slice(1),
      role: index === 0 ? 'admin' : 'analyst',
      password: randomBytes(12).toString('hex'),
      actor: cliActor,
    });
    users.push({ id: created.user.id, email: created.user.email, weight: at(peopleWeights, index) });
  }
  const token = await createToken(db, {
    tenantId,
    name: 'bench-query',
    permissions: [...allPermissions],
    expiresAt: null,
    creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
    lifetime: { defaultMs: 30 * 86_400_000, maxMs: null },
  });
  return { tenantId, users, token: token.value };
}

/** ~2k hosts in families, 1–3 addresses each (one private, sometimes public ones located). */
async function seedDevices({ sink, random, tenantId, now, count }: Load): Promise<SeedDevice[]> {
  const devices: SeedDevice[] = [];
  await sink.batch(() => {
    for (const family of hostFamilies) {
      for (let n = 0; n < family.count; n++) {
        const hostName = `${family.prefix}-${String(n + 1).padStart(family.width, '0')}`;
        const criticality = at(criticalities, weighted(random, family.criticality));
        const firstSeen = now - SPAN_DAYS * DAY - between(random, 0, 60) * DAY;
        const device: SeedDevice = { id: seededId(random, 'dev'), hostName, criticality };
        devices.push(device);
        sink.insert('devices', {
          id: device.id,
          tenant_id: tenantId,
          host_key: hostName.toLowerCase(),
          host_name: hostName,
          description: '',
          criticality,
          last_user:
            family.prefix === 'ws'
              ? `${pick(random, people)}.${pick(random, ['m', 'k', 's', 'r'])}`
              : pick(random, ['root', 'deploy', 'www-data', null]),
          endpoint_id: random() < 0.6 ? seededId(random, 'ep') : null,
          os: family.os,
          kubernetes_namespace:
            family.prefix === 'k8s-node'
              ? pick(random, ['payments', 'checkout', 'search', 'ingest', 'kube-system'])
              : null,
          first_seen: firstSeen,
          last_seen: now - between(random, 0, 3 * HOUR),
          updated_at: now - between(random, 0, 3 * HOUR),
        });
        count('devices');
        const addresses = new Set<string>([
          `10.${between(random, 0, 255)}.${between(random, 0, 255)}.${between(random, 1, 254)}`,
        ]);
        while (random() < 0.35 && addresses.size < 3)
          addresses.add(
            `${between(random, 1, 223)}.${between(random, 0, 255)}.${between(random, 0, 255)}.${between(random, 1, 254)}`,
          );
        for (const ip of addresses) {
          const isPrivate = ip.startsWith('10.');
          const place = pick(random, places);
          sink.insert('device_addresses', {
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
          count('device_addresses');
        }
      }
    }
  });
  return devices;
}

/** Creates the tenant, users and token through the identity code; everything else by bulk insert. */
export async function seed(database: Database, count: number, now: number, analyze: boolean): Promise<Seeded> {
  const start = performance.now();
  const { tenantId, users, token } = await seedIdentity(database.db);
  const { rules, catalogue } = ruleChoices();
  const ruleWeights = rules.map((rule) => rule.weight);
  const random = seededRandom(20_261_120);
  const sink = openSink(database);
  const rows: Record<string, number> = {};
  const count1 = (table: string, n = 1) => (rows[table] = (rows[table] ?? 0) + n);
  const insert = (table: string, row: Record<string, unknown>) => sink.insert(table, row);
  const load: Load = { sink, random, tenantId, now, count: count1 };
  const ctx: CaseSeed = { ...load, rules, ruleWeights, recordSeq: 1 };

  const devices = await seedDevices(load);
  // A few noisy hosts raise most cases (random()^2 skews towards the front of a shuffled list).
  const byNoise = [...devices];
  for (let i = byNoise.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [byNoise[i], byNoise[j]] = [at(byNoise, j), at(byNoise, i)];
  }
  const pickDevice = () => at(byNoise, Math.floor(random() * random() * byNoise.length));

  const cases: ModelCase[] = [];
  const slot = (SPAN_DAYS * DAY) / count;
  const startTime = now - SPAN_DAYS * DAY;
  const BATCH = 5_000;
  for (let from = 0; from < count; from += BATCH) {
    await sink.batch(() => {
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
        const { contents, firstRule, observationIds, observationTimes, observationCount } = seedObservations(
          ctx,
          number,
          createdAt,
          caseDevices,
        );

        // Workflow: old cases are mostly closed; the last week holds most of the open ones.
        const recent = age < 7 * DAY;
        const status = at(
          ['new', 'in_progress', 'on_hold', 'closed'],
          weighted(random, recent ? [40, 25, 10, 25] : [1.5, 2.5, 1.5, 94.5]),
        );
        const assigneeShare = status === 'new' ? 0.08 : status === 'closed' ? 0.85 : 1;
        const assignee =
          random() < assigneeShare
            ? at(
                users,
                weighted(
                  random,
                  users.map((user) => user.weight),
                ),
              )
            : null;
        const sensitive = caseDevices.some(
          (device) =>
            device.hostName.startsWith('web') || device.hostName.startsWith('db') || device.hostName.startsWith('api'),
        );
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
          closedAt = Math.min(
            now - 60_000,
            Math.max(updatedAt + 60_000, createdAt + between(random, 10 * 60_000, 5 * DAY)),
          );
          updatedAt = closedAt;
          if (random() < 0.02 && cases.length > 0) {
            resolution = 'duplicate';
            mergedInto = at(cases, Math.max(0, cases.length - between(random, 1, 30))).id;
          } else resolution = at(resolutions, weighted(random, resolutionWeights));
          if (random() < 0.15)
            closingComment = pick(random, [
              'Expected admin activity.',
              'Scanner from the pentest window.',
              'Host reimaged, credentials rotated.',
              'Known noisy job; rule tuned.',
            ]);
        } else if (status !== 'new') {
          updatedAt = Math.min(now - 30_000, updatedAt + between(random, 60_000, 2 * DAY));
        }

        const derived = deriveFields(
          contents,
          caseDevices.map((device) => ({ host_name: device.hostName, criticality: device.criticality })),
          tags,
          catalogue,
        );
        const manual = random() < 0.04;
        const severity = manual
          ? pick(random, ['low', 'medium', 'high', 'critical'])
          : severityForLevel(derived.max_level);
        const id = seededId(random, 'case');
        const groupKey = caseDevices.length > 0 ? `device:${at(caseDevices, 0).id}` : `rule:${firstRule.id}:detection`;
        let version = 1 + (observationCount > 1 ? 1 : 0);
        const history: HistoryRow[] = [
          [createdAt, 'system', null, 'grouping', 'created', JSON.stringify({ number, group_key: groupKey })],
          [
            createdAt,
            'system',
            null,
            'grouping',
            'observations_added',
            JSON.stringify({ count: observationCount, observation_ids: observationIds }),
          ],
        ];
        const actor = assignee ?? at(users, 0);
        if (status !== 'new') {
          version++;
          const changes: Record<string, unknown> = { status: { from: 'new', to: status } };
          if (assignee) changes.assignee = { from: null, to: assignee.id };
          if (resolution) changes.resolution = { from: null, to: resolution };
          history.push([updatedAt, 'user', actor.id, actor.email, 'updated', JSON.stringify(changes)]);
        }
        insert('cases', {
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
        observationIds.forEach((observationId, k) =>
          insert('case_observations', {
            observation_id: observationId,
            case_id: id,
            tenant_id: tenantId,
            added_at: observationTimes[k],
          }),
        );
        count1('case_observations', observationIds.length);
        for (const device of caseDevices)
          insert('case_devices', { case_id: id, device_id: device.id, tenant_id: tenantId });
        count1('case_devices', caseDevices.length);
        const techniques = JSON.parse(derived.techniques) as string[];
        const filed = filedTechniques(techniques);
        for (const technique of filed) insert('case_techniques', { case_id: id, technique, tenant_id: tenantId });
        count1('case_techniques', filed.length);
        for (const tag of tags) insert('case_tags', { case_id: id, tag, tenant_id: tenantId });
        count1('case_tags', tags.length);

        const comments = seedComments(ctx, id, status, closingComment, actor, { createdAt, updatedAt }, history);
        count1('case_comments', comments);
        for (const [at, actorType, actorId, actorLabel, action, changes] of history) {
          insert('case_history', {
            case_id: id,
            tenant_id: tenantId,
            at,
            actor_type: actorType,
            actor_id: actorId,
            actor_label: actorLabel,
            action,
            changes,
          });
        }
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
    });
    // Between transactions, so that Ctrl-C is heard during a long load.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await sink.batch(() => insert('case_counters', { tenant_id: tenantId, last_number: count }));
  count1('case_counters');
  await sink.finish(analyze);
  return { tenantId, token, users, devices, cases, rows, seconds: (performance.now() - start) / 1000, now };
}
