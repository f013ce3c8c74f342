// Case observables (src/cases/case-observable-store.ts): what each case's evidence names, and
// what analysts added, in normalised form.
import type { Generated } from 'kysely';

export interface CaseObservablesTable {
  seq: Generated<number>;
  /** `obv_…` */
  id: string;
  tenant_id: number;
  case_id: string;
  /** ip, domain, url, md5, sha1, sha256, email, user, host, process_path, command_line. */
  type: string;
  /** Normalised (detection/observable-values.ts). */
  value: string;
  /** JSON array of tags: ioc, benign, internal, or the analysts' own. */
  tags: string;
  /** `evidence` (extracted from the observations and devices) or `analyst`. */
  source: string;
  /** The observation whose evidence named it first (evidence only). */
  observation_id: string | null;
  /** When it was first seen: its first observation's time, or when an analyst added it. */
  first_seen: number;
  created_at: number;
  /** Who added it (`<type>:<label>`); null for extraction. */
  created_by: string | null;
  /** Set when an analyst removed it: it stays removed whatever new evidence names. */
  removed_at: number | null;
  removed_by: string | null;
}
