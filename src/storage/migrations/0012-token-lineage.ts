// Which token minted a token, and why a token stopped working when it was revoked with another:
// deleting a token revokes every token it minted (and theirs), so none outlives its parent.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`ALTER TABLE api_tokens ADD COLUMN parent_token_id TEXT`.execute(db);
  await sql`ALTER TABLE api_tokens ADD COLUMN revoked_reason TEXT`.execute(db);
  await sql`CREATE INDEX api_tokens_parent ON api_tokens (tenant_id, parent_token_id)`.execute(db);
}
