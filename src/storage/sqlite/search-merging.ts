// How the retention purger reclaims the SQLite search index's (FTS5) space for purged entries.
// Deleting an entry only writes a tombstone (the index's `deletemerge` is 0, migration 0041, so
// that the purge's own deletes never trigger merges); the space comes back when the segments
// holding it are rewritten. After a pass that deleted anything, the purge thread merges, in small
// paced steps on its own thread (purge-thread.ts), the levels of the index in
// which at least a tenth of the entries are deleted: FTS5's delete-merge, switched on inside each
// step's transaction only, so no other connection ever runs it of its own accord. A merge a step
// leaves under way is carried on by the next one, and by the index's own automatic merging as the
// record writer indexes. The whole index is never rewritten: merging every segment into one,
// which the purger did before, rewrote the live entries of every day kept with each day purged
// (a 12M-record index after a 1M purge), mostly on the writer's indexing time.
import type SQLite from 'better-sqlite3';

/** FTS5's default for `merge` commands: a level is merged once it holds this many segments. */
const USERMERGE = 4;
/** The most segments a level can hold: with it, a `merge` step chooses by deleted entries alone. */
const MAX_USERMERGE = 16;
/** A level in which at least this percentage of the entries is deleted is reclaimed (FTS5's default). */
export const RECLAIM_PERCENT = 10;
/** The index's structure record: its levels, their segments and any merge under way. */
const STRUCTURE_ROWID = 10;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];

export interface IndexLevel {
  /** Segments of this level that a merge under way takes as its inputs (0: none). */
  merging: number;
  segments: number;
  /** Entries in its segments, and how many of them are deleted (tombstones). */
  entries: number;
  deleted: number;
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
function decodeStructure(data: Uint8Array): IndexLevel[] {
  let at = 4; // the configuration cookie
  const v2 = STRUCTURE_V2.every((byte, i) => data[at + i] === byte);
  if (v2) at += 4;
  const [levelCount, afterCount] = varint(data, at);
  at = afterCount;
  [, at] = varint(data, at); // segments in all
  [, at] = varint(data, at); // write counter
  const levels: IndexLevel[] = [];
  for (let level = 0; level < levelCount; level++) {
    let merging: number;
    let segments: number;
    [merging, at] = varint(data, at);
    [segments, at] = varint(data, at);
    const entry: IndexLevel = { merging, segments, entries: 0, deleted: 0 };
    for (let segment = 0; segment < segments; segment++) {
      // id, first and last page; V2 adds origin (2), tombstone pages, tombstones, entries.
      for (let skip = 0; skip < (v2 ? 6 : 3); skip++) [, at] = varint(data, at);
      if (!v2) continue;
      let value: number;
      [value, at] = varint(data, at);
      entry.deleted += value;
      [value, at] = varint(data, at);
      entry.entries += value;
    }
    if (at > data.length) throw new Error('the search index structure record is truncated');
    levels.push(entry);
  }
  return levels;
}

export function readLevels(connection: SQLite.Database): IndexLevel[] {
  const row = connection.prepare('SELECT block FROM telemetry_fts_data WHERE id = ?').get(STRUCTURE_ROWID) as
    { block: Uint8Array } | undefined;
  return row ? decodeStructure(row.block) : [];
}

function configure(connection: SQLite.Database, name: 'usermerge' | 'deletemerge', value: number): void {
  // A BigInt: FTS5 takes these settings only as SQL integers, and a JS number binds as a real.
  connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES (?, ?)`).run(name, BigInt(value));
}

/** Whether some level still holds enough deleted entries to be reclaimed. */
export function reclaimPending(levels: IndexLevel[]): boolean {
  return levels.some((level) => level.entries > 0 && (level.deleted * 100) / level.entries >= RECLAIM_PERCENT);
}

/**
 * One step of a reclaim, inside the caller's write transaction: about `pages` pages merged, in
 * the levels with the most deleted entries (or a merge already under way, which FTS5 finishes
 * first). Returns whether any level is still to be reclaimed.
 */
export function reclaimStep(connection: SQLite.Database, pages: number): boolean {
  // Both set back before the commit: no other connection sees them.
  configure(connection, 'deletemerge', RECLAIM_PERCENT);
  configure(connection, 'usermerge', MAX_USERMERGE);
  connection.prepare(`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('merge', ?)`).run(pages);
  configure(connection, 'usermerge', USERMERGE);
  configure(connection, 'deletemerge', 0);
  return reclaimPending(readLevels(connection));
}
