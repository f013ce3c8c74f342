// A tenant's code name is its anonymised identifier and the first label of its collector host
// name (`<code_name>-collector.<domain>`), so it must be a valid DNS label.

export const codeNameRule =
  'must be 2-63 characters of lowercase letters, digits and single inner hyphens, starting with a letter';

export function isValidCodeName(value: string): boolean {
  return /^[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(value) && !value.includes('--');
}
