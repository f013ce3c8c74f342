// The second factor of sign-in (identity/second-factor-service.ts).

/** One per user: pending until confirmed with a first code. */
export interface SecondFactorsTable {
  user_id: string;
  /** The user's tenant; null for platform operators. */
  tenant_id: number | null;
  /** The TOTP secret, AES-256-GCM with the deployment's `second_factor_key`: `iv.tag.ciphertext`, base64url. */
  secret_encrypted: string;
  created_at: number;
  /** Epoch ms when the first code confirmed it; null: enrolment not finished, not asked at sign-in. */
  confirmed_at: number | null;
  /** The 30-second step of the last accepted code: codes of that step or earlier are refused. */
  last_used_step: number | null;
}

/** Recovery codes, each usable once; only their SHA-256 is kept. */
export interface RecoveryCodesTable {
  user_id: string;
  tenant_id: number | null;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}
