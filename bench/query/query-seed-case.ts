// bench:query's seeding, one case's parts: its observations (with the case contents they
// derive) and its analyst comments, drawn from the seeded generator in the order the seed uses.
import type { CaseContents } from '../../src/cases/case-derive.js';
import { addContribution, emptyContents } from '../../src/cases/case-derive.js';
import { between, pick, type Random } from '../../src/core/random.js';
import { HOUR, seededId, weighted, type RuleChoice, type SeedDevice, type SeedUser } from './query-model.js';
import type { RowSink } from './query-sink.js';
import { at, present } from '../common/checked.js';

/** What the bulk-loading steps share: where rows go, the seeded generator, and the row counts per table. */
export interface Load {
  sink: RowSink;
  random: Random;
  tenantId: number;
  now: number;
  count: (table: string, n?: number) => void;
}

/** The case loop's state: the rules to draw from and the next record sequence cited as evidence. */
export interface CaseSeed extends Load {
  rules: RuleChoice[];
  ruleWeights: number[];
  recordSeq: number;
}

/** A case's history rows: at, actor type, actor id, actor label, action, changes (JSON). */
export type HistoryRow = [number, string, string | null, string, string, string];

export interface SeededObservations {
  contents: CaseContents;
  firstRule: RuleChoice;
  observationIds: string[];
  observationTimes: number[];
  observationCount: number;
}

/** The observations of case `number`, inserted, and the case contents they derive. */
export function seedObservations(
  ctx: CaseSeed,
  number: number,
  createdAt: number,
  caseDevices: SeedDevice[],
): SeededObservations {
  const { random, rules, ruleWeights, now, tenantId } = ctx;
  // Observations: 1–5, mostly one or two; later ones often repeat the first rule.
  const observationCount = 1 + weighted(random, [40, 25, 15, 12, 8]);
  const firstTime = createdAt - between(random, 1_000, 300_000);
  const contents = emptyContents(number, firstTime);
  const firstRule = at(rules, weighted(random, ruleWeights));
  const observationIds: string[] = [];
  const observationTimes: number[] = [];
  for (let k = 0; k < observationCount; k++) {
    const rule =
      k === 0 || caseDevices.length === 0 || random() < 0.55 ? firstRule : at(rules, weighted(random, ruleWeights));
    const time = k === 0 ? firstTime : Math.min(now - 60_000, firstTime + between(random, 1_000, 12 * HOUR));
    const seqs =
      rule.type === 'correlation'
        ? Array.from({ length: between(random, 5, 20) }, () => ctx.recordSeq++)
        : [ctx.recordSeq++];
    const lastTime = rule.type === 'correlation' ? time + between(random, 10_000, 300_000) : time;
    const host = caseDevices.length > 0 ? at(caseDevices, k % caseDevices.length).hostName : null;
    const id = seededId(random, 'obs');
    const added = Math.min(now - 1_000, lastTime + between(random, 500, 5_000));
    ctx.sink.insert('observations', {
      id,
      tenant_id: tenantId,
      dedupe_key: rule.type === 'correlation' ? `correlation:${rule.id}:${seqs[0]}` : `rule:${rule.id}:${seqs[0]}`,
      source: 'detection',
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
        records: [
          {
            seq: seqs.at(-1),
            fields: host
              ? { host, user: pick(random, ['root', 'deploy', 'www-data']) }
              : { source_ip: `198.51.100.${between(random, 1, 254)}` },
          },
        ],
        ...(rule.type === 'correlation'
          ? { correlation: { group: { host: host ?? 'unknown' }, value: seqs.length } }
          : {}),
      }),
      created_at: added,
      created_by: null,
    });
    ctx.count('observations');
    observationIds.push(id);
    observationTimes.push(added);
    addContribution(contents, {
      ruleId: rule.id,
      ruleTitle: rule.title,
      level: rule.level,
      techniques: rule.techniques,
      tactics: rule.tactics,
      firstTime: time,
      lastTime,
      count: 1,
    });
  }

  return { contents, firstRule, observationIds, observationTimes, observationCount };
}

/** The analyst's notes and the closing comment on a case, inserted and added to its history; their count. */
export function seedComments(
  ctx: CaseSeed,
  id: string,
  status: string,
  closingComment: string | null,
  actor: SeedUser,
  times: { createdAt: number; updatedAt: number },
  history: HistoryRow[],
): number {
  const { random, tenantId } = ctx;
  const { createdAt, updatedAt } = times;
  // Comments: the closing comment, and now and then a note from the analyst.
  let comments = 0;
  const notes = status !== 'new' && random() < 0.12 ? between(random, 1, 3) : 0;
  for (let k = 0; k < notes + (closingComment ? 1 : 0); k++) {
    const body =
      k < notes
        ? pick(random, [
            'Looking into it.',
            'Checked the process tree; parent is the deploy agent.',
            'Asked the owner of the host.',
            'Isolated the host.',
          ])
        : present(closingComment, 'the closing comment');
    const commentedAt = Math.min(updatedAt, createdAt + (k + 1) * 600_000);
    const commentId = seededId(random, 'cmt');
    ctx.sink.insert('case_comments', {
      id: commentId,
      case_id: id,
      tenant_id: tenantId,
      author_type: 'user',
      author_id: actor.id,
      author_label: actor.email,
      body,
      created_at: commentedAt,
      updated_at: commentedAt,
      deleted_at: null,
    });
    history.push([commentedAt, 'user', actor.id, actor.email, 'commented', JSON.stringify({ comment_id: commentId })]);
    comments++;
  }
  return comments;
}
