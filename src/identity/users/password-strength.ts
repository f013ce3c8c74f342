// Refuses passwords a guesser tries first. Length alone (12+) lets "Password1234" and
// "qwertyuiop12" through; zxcvbn (the @zxcvbn-ts packages) knows the common-password lists,
// keyboard walks, dates, repeats and l33t substitutions, and estimates how many guesses a
// password takes. A password must not be a listed common one and must score at least 3 of 4
// ("safely unguessable: moderate protection from an offline attack"), judged with the account's
// own email and name as words a guesser would try. Pure; the dictionaries load on first use.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/** The lowest zxcvbn score (0–4) a password may have. */
export const MIN_PASSWORD_SCORE = 3;

let factory: ZxcvbnFactory | undefined;
let common: Set<string> | undefined;

/** Why the password is too easy to guess, or undefined when it is not. */
export function weakPasswordReason(password: string, personal: readonly string[] = []): string | undefined {
  factory ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  common ??= new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
  if (common.has(password.toLowerCase())) return 'it is on the lists of common passwords guessers try first';
  const words = personal.flatMap((value) => value.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 2);
  const result = factory.check(password, words);
  if (result.score >= MIN_PASSWORD_SCORE) return undefined;
  return `it is easy to guess (strength ${result.score} of 4, at least ${MIN_PASSWORD_SCORE} needed): avoid common words, names, dates, keyboard patterns and repeats, or use a longer passphrase`;
}
