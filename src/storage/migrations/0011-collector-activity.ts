// What each tenant's collector heard, per hour: requests and records by sender (User-Agent and
// source address), and refused requests by problem code with the last one's details. Settings ›
// Collector shows the last 24 hours, so a customer sees a new forwarder, or a broken one, at once.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`CREATE TABLE collector_activity (
    tenant_id BIGINT NOT NULL,
    hour BIGINT NOT NULL,
    user_agent TEXT NOT NULL,
    source_address TEXT NOT NULL,
    requests BIGINT NOT NULL,
    records BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, hour, user_agent, source_address)
  )`.execute(db);
  await sql`CREATE TABLE collector_rejections (
    tenant_id BIGINT NOT NULL,
    hour BIGINT NOT NULL,
    code TEXT NOT NULL,
    count BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    last_source_address TEXT NOT NULL,
    last_user_agent TEXT NOT NULL,
    last_detail TEXT NOT NULL,
    PRIMARY KEY (tenant_id, hour, code)
  )`.execute(db);
}
