// The deployment's own settings table: a few keys one process writes and others read (the
// server records its public URL at start; the CLI prints collector addresses with it), and the
// deployment's generated keys (the cursor signing key), made once and shared by every node.
import { randomBytes } from 'node:crypto';
import type { Db } from './database.js';

export type InstanceSettingKey =
  'public_url' | 'cursor_key' | 'record_id_key' | 'second_factor_key' | 'sso_key' | 'webhook_key';

export async function saveInstanceSetting(
  db: Db,
  key: InstanceSettingKey,
  value: string,
  now = Date.now(),
): Promise<void> {
  await db
    .insertInto('instance_settings')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}

export async function readInstanceSetting(db: Db, key: InstanceSettingKey): Promise<string | undefined> {
  const row = await db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/**
 * A random key of the deployment (base64url in the table): read, or made on first use. Two
 * nodes starting at once both insert; the first insert wins and both read the same key back.
 */
export async function instanceKey(db: Db, key: InstanceSettingKey, bytes = 32): Promise<Buffer> {
  await db
    .insertInto('instance_settings')
    .values({ key, value: randomBytes(bytes).toString('base64url'), updated_at: Date.now() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const value = await readInstanceSetting(db, key);
  if (value === undefined) throw new Error(`instance key ${key} is missing after it was written`);
  return Buffer.from(value, 'base64url');
}
