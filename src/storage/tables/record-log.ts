// The record log: every accepted record as received, and how far each follower has read it.
import type { Generated } from 'kysely';

/** The record log: one row per accepted record, in commit order (`seq`). */
export interface TelemetryRecordsTable {
  seq: Generated<number>;
  tenant_id: number;
  /** Server receive time, epoch milliseconds. */
  received_at: number;
  /** The record's own time when it carried a parseable one, else the receive time. */
  event_time: number;
  /** The record as stored: one JSON object, as text. */
  record: string;
  /** Transport metadata (container-runtime stream/time/logtag), JSON object text or null. */
  meta: string | null;
  /** PostgreSQL: true when the writer found the record surely readable as jsonb; NULL when not sure (SQLite: always NULL). */
  jsonb_ok: boolean | null;
  /** PostgreSQL: true when the writer found every string and number written as itself; NULL when not sure (SQLite: always NULL). */
  plain_text: boolean | null;
}

/** Where each follower of the record log has got to (last sequence fully processed). */
export interface LogCursorsTable {
  name: string;
  seq: number;
  /** PostgreSQL followers that read in (transaction id, seq) order keep the xid8 here, as text. */
  tx_id: string | null;
  /** PostgreSQL: the snapshot every record it sees has been read (pg_snapshot text). */
  seen: string | null;
  /** PostgreSQL, inside a window read in parts: the snapshot it ends at. */
  up_to: string | null;
}

/** Scale-out: per JetStream stream partition, what the database has applied and whose lease may move it. */
export interface LogPartitionsTable {
  stream: string;
  partition: number;
  /** The stream sequence of the last message applied; later redeliveries at or below it are skipped. */
  applied_seq: number;
  /** Raised by each new owner; an apply whose epoch is not the current one is refused. */
  owner_epoch: number;
  owner: string | null;
  updated_at: number;
}

/** Scale-out: the workers alive on a stream (heartbeats), from which each computes its fair share. */
export interface LogWorkersTable {
  stream: string;
  id: string;
  seen_at: number;
}

/** Scale-out: a message a worker could not apply, set aside so that its stream partition moves on. */
export interface LogDeadLettersTable {
  id: Generated<number>;
  stream: string;
  partition: number;
  stream_seq: number;
  /** The tenant of the message when it could be read far enough to tell. */
  tenant_id: number | null;
  reason: string;
  /** The start of the message, bounded (the whole message stays in the stream until it ages out). */
  excerpt: string;
  bytes: number;
  created_at: number;
}
