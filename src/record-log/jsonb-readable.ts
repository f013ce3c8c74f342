// Whether PostgreSQL can surely read a record as jsonb, decided once when the record is written
// and stored with it (telemetry_records.jsonb_ok), so that field searches need not test every
// record's text again (telemetry-query-sql.ts, notJsonbCastable: a regular expression over the
// whole text that costs as much as reading the record as jsonb). The records are valid JSON:
// the collector parsed every one, and JSON.parse refuses what PostgreSQL's JSON parser does (raw
// control characters in strings among it); jsonb refuses besides only some escapes and numbers
// beyond `numeric`. A record with any `\u` escape, a number with an exponent of five or more
// digits, or a run of 16,384 digits is "not sure" (NULL in the column): the query's own test then
// decides for it. Each test here matches at least what the query's does, so "sure" is never wrong.

/** A number with an exponent of five or more digits, where a JSON number can start (hex ids are full of "e12345"). */
const EXPONENT = /[:,[]\s*-?[0-9]+(\.[0-9]+)?[eE][+-]?0*[1-9][0-9]{4}/;
const LONG_DIGIT_RUN = 16_384;

export function surelyJsonbReadable(record: string): boolean {
  if (record.includes('\\u')) return false;
  if (EXPONENT.test(record)) return false;
  return record.length < LONG_DIGIT_RUN || longestDigitRun(record) < LONG_DIGIT_RUN;
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
