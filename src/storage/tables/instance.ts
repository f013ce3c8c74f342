// The deployment's own settings (storage/instance-settings.ts).

export interface InstanceSettingsTable {
  key: string;
  value: string;
  updated_at: number;
}
