// What the PostgreSQL writer finds out about a record's JSON text once, when it writes it, and
// stores with it so that field searches need not find it out again for every record they read:
//
// - jsonb_ok: PostgreSQL can surely read the record as jsonb. Field searches then skip the test
//   of its text (telemetry-query-sql.ts, notJsonbCastable: a regular expression over the whole
//   text that costs as much as reading the record as jsonb). The records are valid JSON: the
//   collector parsed every one, and JSON.parse refuses what PostgreSQL's JSON parser does (raw
//   control characters in strings among it); jsonb refuses besides only some escapes and numbers
//   beyond `numeric`. A record with any `\u` escape, a number with an exponent of five or more
//   digits, or a run of 16,384 digits is "not sure".
// - plain_text: every string character and every number is written as itself: no `\u` or `\/`
//   escape (the only ones that write a character JSON need not escape) and no number with an
//   exponent. A value equal to what a search wants then appears in the text as the search
//   writes it, so the text prefilter (telemetry-prefilter.ts) needs one substring, not the
//   backslash and every place a decimal point could go.
//
// "Not sure" is NULL in the column, as for records written before the column existed: the query
// then tests such a record itself. Each test here matches at least what the query's would, so a
// mark is never wrong; a false "not sure" (a `\\u` that is an escaped backslash before a `u`)
// only costs that record the slower path.

/** A number written with an exponent, where a JSON number can start (hex ids are full of "3e12"). */
const EXPONENT = /[:,[]\s*-?[0-9]+(\.[0-9]+)?[eE]/;
/** The same with an exponent of five or more digits, which may be beyond `numeric`. */
const HUGE_EXPONENT = /[:,[]\s*-?[0-9]+(\.[0-9]+)?[eE][+-]?0*[1-9][0-9]{4}/;
const LONG_DIGIT_RUN = 16_384;

/** Bits of textMarks' answer. */
export const JSONB_OK = 1;
export const PLAIN_TEXT = 2;

/** JSONB_OK and PLAIN_TEXT as they hold for the record's text; one scan for most records. */
export function textMarks(record: string): number {
  if (record.includes('\\u')) return 0;
  const exponent = EXPONENT.test(record);
  const readable =
    !(exponent && HUGE_EXPONENT.test(record)) &&
    (record.length < LONG_DIGIT_RUN || longestDigitRun(record) < LONG_DIGIT_RUN);
  const plain = !exponent && !record.includes('\\/');
  return (readable ? JSONB_OK : 0) | (plain ? PLAIN_TEXT : 0);
}

/** In one pass: a regular expression for the run would try it again from every digit. */
function longestDigitRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    run = code >= 48 && code <= 57 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
