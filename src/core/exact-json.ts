// Records are evidence: they must come back with every digit they were sent with. JSON.parse
// reads numbers as doubles, so 18446744073709551615 (a common "none" value of unsigned 64-bit
// Windows fields) would come back as 18446744073709552000. Stored records keep the text they
// were sent as (without whitespace between tokens, at most); answers write that text in place
// (RawJson) instead of parsing and serialising it again.
import { randomBytes } from 'node:crypto';

/** A JSON text carried inside a value, written out as itself by stringifyWithRawJson. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A value as a client reads it: each RawJson in it arrives as the JSON object it holds. */
export type AsRead<T> = T extends RawJson
  ? Record<string, unknown>
  : T extends readonly (infer Item)[]
    ? AsRead<Item>[]
    : T extends object
      ? { [Key in keyof T]: AsRead<T[Key]> }
      : T;

/**
 * JSON.stringify, except that each RawJson is written as its own text. Each RawJson is first
 * written as a placeholder string holding a random nonce of this call, which no string of the
 * value can hold by chance or by design, then replaced by its text.
 */
export function stringifyWithRawJson(value: unknown, space?: number): string {
  const raws: string[] = [];
  const nonce = `\u2063raw-${randomBytes(12).toString('hex')}-`;
  // undefined for a value JSON cannot hold (undefined itself, a function), whatever the type says.
  const json = JSON.stringify(
    value,
    (_key, item: unknown) => {
      if (!(item instanceof RawJson)) return item;
      raws.push(item.text);
      return `${nonce}${raws.length - 1}`;
    },
    space,
  ) as string | undefined;
  if (json === undefined) throw new TypeError('the value cannot be written as JSON');
  if (raws.length === 0) return json;
  return json.replace(new RegExp(`"${nonce}(\\d+)"`, 'g'), (_match, index: string) => raws[Number(index)] ?? 'null');
}

/**
 * The JSON text without whitespace between tokens: every value, number and escape stays as it
 * was written (a pretty-printed record becomes one line, and nothing of it is parsed again).
 */
export function compactJson(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === SPACE || code === TAB || code === LF || code === CR) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}
const [BACKSLASH, QUOTE, SPACE, TAB, LF, CR] = [0x5c, 0x22, 0x20, 0x09, 0x0a, 0x0d];
