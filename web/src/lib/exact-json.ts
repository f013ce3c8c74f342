// Records are evidence and the server sends every number with the digits it was sent with;
// JSON.parse would read 18446744073709551615 as 18446744073709552000. Answers that may hold
// such a number are parsed keeping it as a LosslessNumber, which the record views write out
// with its own digits.
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** Whether JSON text may hold a number a double cannot keep: 16 or more digits in a row. */
const LONG_DIGIT_RUN = /\d{16}/;

/** JSON.parse, except that a number a double cannot hold exactly stays a LosslessNumber. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text) as unknown;
  return parse(text, null, (digits) => (isSafeNumber(digits) ? Number(digits) : new LosslessNumber(digits)));
}

/** JSON.stringify that writes each LosslessNumber with its own digits. */
export function stringifyJson(value: unknown, space?: number): string {
  return stringify(value, null, space) ?? 'undefined';
}

/** A number kept with its exact digits: a leaf, shown as its digits, never a nested object. */
export const isExactNumber = (value: unknown): value is LosslessNumber => isLosslessNumber(value);
