// How the SQLite search index (FTS5) merges its segments while the retention purger reclaims the
// space of purged entries. Deleting an entry only writes a tombstone; the space comes back when the
// segments holding it are rewritten. The purger does that as one merge of every segment, in small
// paced steps on its own thread (retention/sqlite-purge-thread.ts). FTS5 carries a merge under way
// forward in every transaction that writes to the index, by several times the pages the
// transaction wrote itself, so with automatic merging on, the record writer's indexing chunks did
// most of that merge: ingest at 20,000 records/s fell to 2,600–4,700 for minutes after a purge of a
// million records. Automatic merging is therefore off from the reclaim's first step until its
// merge is complete. It is a setting stored in the index, so a reclaim interrupted by a restart is
// still recognisable, and the purger's next pass finishes it. Meanwhile new segments merge once 16
// pile up on a level (FTS5's crisis merge, which does not depend on the setting).
import type SQLite from 'better-sqlite3';

/** FTS5's default, which the index runs with except while a reclaim is under way. */
export const AUTOMERGE = 4;
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

export const mergeUnderWay = (levels: IndexLevel[]): boolean => levels.some((level) => level.merging > 0);

/** Whether a reclaim has started and not finished: automatic merging is off. */
export function reclaimUnderWay(connection: SQLite.Database): boolean {
  const row = connection.prepare(`SELECT v FROM telemetry_fts_config WHERE k = 'automerge'`).get() as
    | { v: number | string }
    | undefined;
  return row !== undefined && Number(row.v) === 0;
}

function configure(connection: SQLite.Database, name: 'automerge' | 'usermerge', value: number): void {
  // A BigInt: FTS5 takes these settings only as SQL integers, and a JS number binds as a real.
  connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES (?, ?)`).run(name, BigInt(value));
}

/**
 * One step of a reclaim, inside the caller's write transaction: about `pages` pages merged.
 * `start`: whether a reclaim may begin here when none is under way (the purger deleted something).
 * Returns whether the reclaim's merge goes on after this step.
 */
export function reclaimStep(connection: SQLite.Database, pages: number, start: boolean): boolean {
  if (!reclaimUnderWay(connection)) {
    if (!start) return false;
    configure(connection, 'automerge', 0);
    // Negative: every segment moves to one level first, so the merge rewrites even a level holding
    // a single segment, which is where an old day's tombstones sit once ingest has moved on.
    connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('merge', ?)`).run(-pages);
  } else {
    // Two for this step only (set back before the commit, so no other connection sees it): FTS5
    // carries on the merge under way unless a lower level holds more segments than that merge has
    // inputs, and then merges that level, which is progress too, rather than doing nothing.
    configure(connection, 'usermerge', 2);
    connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('merge', ?)`).run(pages);
    configure(connection, 'usermerge', USERMERGE);
  }
  if (mergeUnderWay(readLevels(connection))) return true;
  configure(connection, 'automerge', AUTOMERGE);
  return false;
}
