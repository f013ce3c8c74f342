// The deployment's own settings table: a few keys one process writes and others read (the
// server records its public URL at start; the CLI prints collector addresses with it).
import type { Db } from './database.js';

export type InstanceSettingKey = 'public_url';

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
