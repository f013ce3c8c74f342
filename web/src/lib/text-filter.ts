// Filtering a list already on the page by what someone typed (tokens, tenants, review requests,
// a device's processes): case-insensitive, any of the fields, empty text keeps everything.

export function matchesText(text: string | undefined, ...values: (string | number | null | undefined)[]): boolean {
  const needle = (text ?? '').trim().toLowerCase();
  if (!needle) return true;
  return values.some((value) => value !== null && value !== undefined && String(value).toLowerCase().includes(needle));
}
