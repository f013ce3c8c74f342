// The one error a rule can be refused with: it names the rule file, the construct that is
// unsupported or wrong, and the rule (id, title) when known, so a rejected rule is never a
// silent one.
export class RuleError extends Error {
  override name = 'RuleError';

  constructor(
    readonly file: string,
    readonly construct: string,
    message: string,
    readonly rule?: { id?: string; title?: string },
  ) {
    const who =
      rule?.title !== undefined || rule?.id !== undefined
        ? ` rule ${JSON.stringify(rule.title ?? '')}${rule.id ? ` (id ${rule.id})` : ''}:`
        : '';
    super(`${file}:${who} ${message}`);
  }
}
