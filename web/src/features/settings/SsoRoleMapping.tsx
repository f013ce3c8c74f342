// The role claim's values and the role each gives, edited as rows (value → role).
import { Button } from '../../components/ui';

export type TenantRole = 'admin' | 'analyst' | 'viewer';
export const tenantRoles: TenantRole[] = ['admin', 'analyst', 'viewer'];

export interface MappingRow {
  value: string;
  role: TenantRole;
}

export function SsoRoleMapping({
  rows,
  onChange,
  disabled,
}: {
  rows: MappingRow[];
  onChange: (rows: MappingRow[]) => void;
  disabled: boolean;
}) {
  const set = (index: number, change: Partial<MappingRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="sso-mapping" disabled={disabled}>
      <legend className="field-label">Role mapping</legend>
      {rows.map((row, index) => (
        <div className="sso-mapping-row" key={index}>
          <input
            type="text"
            aria-label={`Claim value ${index + 1}`}
            placeholder="claim value, e.g. soc-analysts"
            value={row.value}
            onChange={(event) => set(index, { value: event.target.value })}
          />
          <select
            aria-label={`Role for claim value ${index + 1}`}
            value={row.role}
            onChange={(event) => set(index, { role: event.target.value as TenantRole })}
          >
            {tenantRoles.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
          <Button small variant="ghost" onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove
          </Button>
        </div>
      ))}
      <Button small onClick={() => onChange([...rows, { value: '', role: 'viewer' }])}>
        Add a mapping
      </Button>
    </fieldset>
  );
}
