// How the retention purger reclaims the SQLite search index's (FTS5) space for purged entries.
// Deleting an entry only writes a tombstone; the space comes back when the segment holding it is
// rewritten. The purger starts one merge of every segment into one (a negative `merge`: every
// segment moves to one level first, so even a level holding a single segment, where an old day's
// tombstones sit once ingest has moved on, is rewritten) and carries it on in small paced steps
// on its own thread (retention/sqlite-purge-thread.ts), as the record writer's own automatic
// merging does. Only the first step may be negative: each negative step moved the segments that
// ingest had added since onto a new level and restarted the merge from there, the merged part
// included, so under ingest the index was rewritten again and again, mostly by the writer's
// indexing (ingest at 20,000 records/s fell to 2,600–4,700 for minutes after a 1M purge).
import type SQLite from 'better-sqlite3';

/** FTS5's default for `merge` commands: a level is merged once it holds this many segments. */
const USERMERGE = 4;
/** The index's structure record: its levels, their segments and any merge under way. */
const STRUCTURE_ROWID = 10;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];

export interface IndexLevel {
  /** Segments of this level that a merge under way takes as its inputs (0: none). */
  merging: number;
  segments: number;
}

/** SQLite's variable-length integer: seven bits a byte, big-endian, eight in a ninth byte. */
function varint(data: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = data[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return [value * 256 + (data[at + 8] ?? 0), at + 9];
}

/** Levels of an FTS5 structure record, in both of its formats (V2: contentless_delete tables). */
export function decodeStructure(data: Uint8Array): IndexLevel[] {
  let at = 4; // the configuration cookie
  const v2 = STRUCTURE_V2.every((byte, i) => data[at + i] === byte);
  if (v2) at += 4;
  const [levelCount, afterCount] = varint(data, at);
  at = afterCount;
  [, at] = varint(data, at); // segments in all
  [, at] = varint(data, at); // write counter
  const perSegment = v2 ? 8 : 3;
  const levels: IndexLevel[] = [];
  for (let level = 0; level < levelCount; level++) {
    let merging: number;
    let segments: number;
    [merging, at] = varint(data, at);
    [segments, at] = varint(data, at);
    for (let skip = 0; skip < segments * perSegment; skip++) [, at] = varint(data, at);
    if (at > data.length) throw new Error('the search index structure record is truncated');
    levels.push({ merging, segments });
  }
  return levels;
}

export function readLevels(connection: SQLite.Database): IndexLevel[] {
  const row = connection.prepare('SELECT block FROM telemetry_fts_data WHERE id = ?').get(STRUCTURE_ROWID) as
    | { block: Uint8Array }
    | undefined;
  return row ? decodeStructure(row.block) : [];
}

function configure(connection: SQLite.Database, name: 'usermerge', value: number): void {
  // A BigInt: FTS5 takes these settings only as SQL integers, and a JS number binds as a real.
  connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES (?, ?)`).run(name, BigInt(value));
}

const merge = (connection: SQLite.Database, pages: number) =>
  connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('merge', ?)`).run(pages);

/** The level whose segments the reclaim's merge takes as inputs: the highest one merging. */
const reclaimLevel = (levels: IndexLevel[]): number | undefined => {
  const level = levels.findLastIndex((entry) => entry.merging > 0);
  return level < 0 ? undefined : level;
};

/**
 * One step of a reclaim, inside the caller's write transaction: about `pages` pages merged.
 * `level`: where the reclaim's merge is under way (from the previous step), or undefined to start
 * one. Returns that level while the merge goes on, undefined once it is complete.
 */
export function reclaimStep(connection: SQLite.Database, pages: number, level: number | undefined): number | undefined {
  if (level === undefined) {
    merge(connection, -pages);
    return reclaimLevel(readLevels(connection));
  }
  // Two for this step only (set back before the commit, so no other connection sees it): FTS5
  // carries on the lowest merge under way unless a level below holds more segments than it has
  // inputs, and then merges that level, which is progress too, rather than doing nothing.
  configure(connection, 'usermerge', 2);
  merge(connection, pages);
  configure(connection, 'usermerge', USERMERGE);
  return (readLevels(connection)[level]?.merging ?? 0) > 0 ? level : undefined;
}
