// Sealing subscriptions' signing secrets: the dispatcher must read them back to sign, so they
// are sealed (AES-256-GCM under the deployment's webhook key, as single sign-on seals its client
// secrets), bound to the tenant and subscription so a sealed value moved elsewhere does not open.
import type { Db } from '../storage/database.js';
import { instanceKey } from '../storage/instance-settings.js';
import { Sealer } from '../identity/sso/sso-seal.js';

export function secretContext(subscription: { tenant_id: number; id: string }): string {
  return `webhook-secret:${subscription.tenant_id}:${subscription.id}`;
}

export async function webhookSealer(db: Db): Promise<Sealer> {
  return new Sealer(await instanceKey(db, 'webhook_key'));
}
