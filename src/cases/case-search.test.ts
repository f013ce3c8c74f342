// The case search's plans against a model, on a real database: sets of more than DRIVE_LIMIT
// cases (walked through a sort index, checked per case) and of a few (driving the query), row
// filters matching many or few cases, free text long enough for the trigram index and too
// short, every sort both ways, keyset pages across ties, and totals counted up to a limit.
// Every answer must be exactly the model's, whichever plan found it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createTenant } from '../identity/tenants/tenant-service.js';
import { ensureDevice } from '../devices/device-store.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { seededRandom } from '../core/random.js';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { storagePorts } from '../../test/helpers/storage-ports.js';
import { addCaseDevices, addCaseTechniques, insertCase, replaceCaseTags, type NewCaseRow } from './case-store.js';
import {
  DRIVE_LIMIT,
  searchCases,
  sortValue,
  type CaseFilter,
  type CaseSort,
  type TotalTracking,
} from './case-search.js';

const BIG = DRIVE_LIMIT + 150;
const T0 = Date.parse('2026-11-01T00:00:00Z');

interface Model {
  id: string;
  seq: number;
  status: string;
  severity: string;
  score: number;
  assignee: string | null;
  created: number;
  updated: number;
  devices: string[];
  tags: string[];
  techniques: string[];
  text: string;
}

function matches(model: Model, filter: CaseFilter): boolean {
  if (filter.statuses && !filter.statuses.includes(model.status)) return false;
  if (filter.severities && !filter.severities.includes(model.severity)) return false;
  if (filter.scoreMin !== undefined && model.score < filter.scoreMin) return false;
  if (filter.scoreMax !== undefined && model.score > filter.scoreMax) return false;
  if (filter.assignee !== undefined && model.assignee !== filter.assignee) return false;
  if (filter.deviceId !== undefined && !model.devices.includes(filter.deviceId)) return false;
  if (filter.tags && !filter.tags.every((tag) => model.tags.includes(tag))) return false;
  const technique = filter.technique;
  if (technique !== undefined && !model.techniques.some((id) => id === technique || id.startsWith(`${technique}.`)))
    return false;
  if (filter.text !== undefined && !model.text.includes(filter.text.trim().toLowerCase())) return false;
  if (filter.createdAfter !== undefined && model.created < filter.createdAfter) return false;
  if (filter.updatedAfter !== undefined && model.updated <= filter.updatedAfter) return false;
  return true;
}

const valueOf = (model: Model, sort: CaseSort) =>
  sort === 'created' ? model.created : sort === 'updated' ? model.updated : model.score;

for (const target of databaseTargets) {
  describe(`case search plans on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    let tenantId: number;
    const models: Model[] = [];
    const device: Record<'busy' | 'quiet', string> = { busy: '', quiet: '' };

    before(async () => {
      testDb = await target.create();
      database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
      await migrateToLatest(database);
      const db = database.db;
      tenantId = (await createTenant(db, { codeName: 'search-plans' })).id;
      // Another tenant's cases carry the same device names, tags, techniques and text: none may show.
      const other = (await createTenant(db, { codeName: 'search-plans-other' })).id;
      const random = seededRandom(4_242);
      await writeTransaction(db, async (trx) => {
        device.busy = await ensureDevice(trx, tenantId, 'busy-host', 'busy-host', T0, T0);
        device.quiet = await ensureDevice(trx, tenantId, 'quiet-host', 'quiet-host', T0, T0);
        const otherDevice = await ensureDevice(trx, other, 'busy-host', 'busy-host', T0, T0);
        const total = BIG + 250;
        for (let i = 0; i < total + 20; i++) {
          const mine = i < total;
          const seen = mine ? (i < BIG ? [device.busy] : i < BIG + 8 ? [device.quiet] : []) : [otherDevice];
          const tags = [...(i % 10 !== 0 ? ['common'] : []), ...(i % 300 === 7 ? ['rare'] : [])];
          const techniques = [
            ...(i % 7 !== 0 ? ['T1059'] : []),
            ...(i % 3 === 0 ? ['T1059.004'] : []),
            ...(i % 211 === 5 ? ['T1003.001'] : []),
          ];
          const text = [
            `#${i + 1}`,
            i % 9 !== 0 ? 'needle in a haystack' : 'hay only',
            i % 400 === 3 ? 'golden-needle' : '',
            seen.length ? 'busy-host' : '',
          ].join('\n');
          // Ties on created_at every few cases, so pages turn on seq as well.
          const created = T0 + Math.floor(i / 3) * 60_000;
          const row: NewCaseRow = {
            id: `case_plan${String(i).padStart(15, '0')}`,
            tenant_id: mine ? tenantId : other,
            number: i + 1,
            title: `Case ${i + 1}`,
            description: '',
            score: Math.floor(random() * 101),
            severity: ['low', 'medium', 'high', 'critical'][i % 4]!,
            severity_manual: 0,
            status: i % 5 === 0 ? 'new' : i % 5 === 1 ? 'in_progress' : 'closed',
            resolution: null,
            closing_comment: null,
            assignee_id: i % 50 === 0 ? 'usr_rare' : i % 2 === 0 ? 'usr_common' : null,
            group_key: `rule:r${i}`,
            observation_count: 1,
            max_level: 'high',
            rules: '[]',
            techniques: JSON.stringify(techniques),
            tactics: '[]',
            tags: JSON.stringify(tags),
            search_text: text.toLowerCase(),
            merged_into: null,
            version: 1,
            created_at: created,
            updated_at: created + Math.floor(random() * 10) * 1_000,
            first_observation_at: created,
            last_observation_at: created,
            closed_at: null,
          };
          await insertCase(trx, row);
          await addCaseDevices(trx, row.tenant_id, row.id, seen);
          await replaceCaseTags(trx, row.tenant_id, row.id, tags);
          await addCaseTechniques(trx, row.tenant_id, row.id, techniques);
          if (mine)
            models.push({
              id: row.id,
              seq: 0,
              status: row.status,
              severity: row.severity,
              score: row.score,
              assignee: row.assignee_id,
              created,
              updated: row.updated_at,
              devices: seen,
              tags,
              techniques,
              text: row.search_text,
            });
        }
      });
      const seqs = await db.selectFrom('cases').select(['id', 'seq']).where('tenant_id', '=', tenantId).execute();
      const seqOf = new Map(seqs.map((row) => [row.id, row.seq]));
      for (const model of models) model.seq = seqOf.get(model.id)!;
    });
    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    /** Every match, page by page (keyset cursors), and the first page's total. */
    async function searchAll(filter: CaseFilter, sort: CaseSort, order: 'asc' | 'desc', tracking: TotalTracking) {
      const ids: string[] = [];
      let afterKey: { value: number; seq: number } | undefined;
      let first: Awaited<ReturnType<typeof searchCases>>['total'] | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const { rows, total } = await searchCases(
          database.db,
          storagePorts(database).caseSearch,
          tenantId,
          filter,
          { sort, order, limit: 400, ...(afterKey ? { after: afterKey } : {}) },
          tracking,
        );
        if (pages === 0) first = total;
        ids.push(...rows.map((row) => row.id));
        const last = rows.at(-1);
        if (rows.length < 400 || !last) break;
        afterKey = { value: sortValue(last, sort), seq: last.seq };
      }
      return { ids, total: first };
    }

    const filters: [string, () => CaseFilter][] = [
      ['everything', () => ({})],
      ['a big device set (walked)', () => ({ deviceId: device.busy })],
      ['a small device set (driving)', () => ({ deviceId: device.quiet })],
      ['a big device set and a status', () => ({ deviceId: device.busy, statuses: ['new'] })],
      ['a big tag set', () => ({ tags: ['common'] })],
      ['a small tag set with a big one', () => ({ tags: ['common', 'rare'] })],
      ['a parent technique (sub-techniques twice on a case)', () => ({ technique: 'T1059' })],
      ['a sub-technique', () => ({ technique: 'T1059.004' })],
      ['a rare technique with a big tag set', () => ({ technique: 'T1003', tags: ['common'] })],
      ['indexed text matching many', () => ({ text: 'NEEDLE' })],
      ['indexed text matching few', () => ({ text: 'golden-needle' })],
      [
        'indexed text with a big device set and a score',
        () => ({ text: 'needle', deviceId: device.busy, scoreMin: 40 }),
      ],
      ['text too short for the index', () => ({ text: '#1' })],
      ['many statuses and severities', () => ({ statuses: ['new', 'closed'], severities: ['high', 'critical'] })],
      ['a rare assignee', () => ({ assignee: 'usr_rare' })],
      ['unassigned, a score range', () => ({ assignee: null, scoreMin: 20, scoreMax: 70 })],
      ['recent changes', () => ({ updatedAfter: T0 + 300 * 60_000 })],
      ['nothing', () => ({ technique: 'T9999' })],
    ];

    for (const [label, filterOf] of filters) {
      test(`${label}: every sort and order, paged, equals the model`, async () => {
        const filter = filterOf();
        const expected = models.filter((model) => matches(model, filter));
        for (const sort of ['created', 'updated', 'score'] as const) {
          for (const order of ['desc', 'asc'] as const) {
            const direction = order === 'desc' ? -1 : 1;
            const ordered = [...expected]
              .sort((a, b) => direction * (valueOf(a, sort) - valueOf(b, sort) || a.seq - b.seq))
              .map((model) => model.id);
            const found = await searchAll(filter, sort, order, { upTo: 10_000 });
            assert.deepEqual(found.ids, ordered, `${label}, ${sort} ${order}`);
            assert.deepEqual(found.total, { value: expected.length, relation: 'eq' });
          }
        }
        const capped = await searchAll(filter, 'created', 'desc', { upTo: 100 });
        assert.deepEqual(
          capped.total,
          expected.length > 100 ? { value: 100, relation: 'gte' } : { value: expected.length, relation: 'eq' },
        );
        assert.deepEqual((await searchAll(filter, 'created', 'desc', { exact: true })).total, {
          value: expected.length,
          relation: 'eq',
        });
        const uncounted = await searchAll(filter, 'score', 'desc', null);
        assert.equal(uncounted.total, null);
        assert.equal(uncounted.ids.length, expected.length);
      });
    }

    test('a changed search text is found by its new text only (the trigram index follows updates)', async () => {
      const model = models[5]!;
      const find = async (text: string) =>
        (
          await searchCases(
            database.db,
            storagePorts(database).caseSearch,
            tenantId,
            { text },
            { sort: 'created', order: 'desc', limit: 10 },
            { upTo: 10 },
          )
        ).rows.map((row) => row.id);
      // '#6' then the next line: this case's alone (#60 and on have another digit before it).
      assert.deepEqual(await find('#6\nneedle'), [model.id]);
      await database.db
        .updateTable('cases')
        .set({ search_text: 'renamed-marker' })
        .where('id', '=', model.id)
        .execute();
      assert.deepEqual(await find('renamed-marker'), [model.id]);
      assert.deepEqual(await find('#6\nneedle'), []);
      await database.db.updateTable('cases').set({ search_text: model.text }).where('id', '=', model.id).execute();
      assert.deepEqual(await find('#6\nneedle'), [model.id]);
    });
  });
}
