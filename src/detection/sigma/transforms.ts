// The value transformations of a detection item, applied left to right before matching: expand
// (pipeline placeholders), windash (every dash Windows accepts), utf16le/utf16be/utf16/wide (text to
// bytes) and base64/base64offset (bytes to the text a log shows).
import { ModifierError, type ItemContext } from './item.js';
import { SigmaString } from './pattern.js';

export const TRANSFORMS = new Set([
  'expand',
  'windash',
  'utf16le',
  'utf16be',
  'utf16',
  'wide',
  'base64',
  'base64offset',
]);
const WINDASH_CHARS = ['-', '/', '\u2013', '\u2014', '\u2015'];
const WINDASH_MAX = 4;

/** Each value becomes one or more texts to match (windash, expand and base64offset make variants). */
export function applyTransforms(value: string, transforms: string[], key: string, context: ItemContext): string[] {
  let texts = [value];
  let bytes: Buffer[] | null = null;
  for (const transform of transforms) {
    switch (transform) {
      case 'expand':
        texts = texts.flatMap((text) => expand(text, key, context));
        break;
      case 'windash':
        texts = texts.flatMap((text) => windash(text, key));
        break;
      case 'utf16le':
      case 'wide':
        bytes = texts.map((text) => Buffer.from(plain(text, transform, key), 'utf16le'));
        break;
      case 'utf16be':
        bytes = texts.map((text) => Buffer.from(plain(text, transform, key), 'utf16le').swap16());
        break;
      case 'utf16':
        bytes = texts.map((text) =>
          Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plain(text, transform, key), 'utf16le')]),
        );
        break;
      case 'base64':
      case 'base64offset': {
        const input = bytes ?? texts.map((text) => Buffer.from(plain(text, transform, key), 'utf8'));
        texts =
          transform === 'base64' ? input.map((buffer) => buffer.toString('base64')) : input.flatMap(base64Offsets);
        bytes = null;
        break;
      }
    }
  }
  if (bytes !== null)
    throw new ModifierError(
      `modifier '${transforms.find((name) => name.startsWith('utf16') || name === 'wide')}'`,
      `'${key}': utf16/wide must be followed by base64 or base64offset`,
    );
  return texts;
}

/** The value's text with its escapes resolved (`\\` is one backslash), for encoding: wildcards cannot be encoded. */
function plain(text: string, transform: string, key: string): string {
  const parsed = SigmaString.parse(text);
  if (parsed.hasWildcards)
    throw new ModifierError(
      `modifier '${transform}'`,
      `'${key}': a value with wildcards cannot be encoded (${transform})`,
    );
  return parsed.plain;
}

/** The three encodings of a value at byte offsets 0, 1, 2 of a base64 stream (as pySigma). */
function base64Offsets(value: Buffer): string[] {
  const starts = [0, 2, 3];
  const ends = [0, 3, 2];
  return [0, 1, 2].map((shift) => {
    const encoded = Buffer.concat([Buffer.alloc(shift, ' '), value]).toString('base64');
    const end = ends[(value.length + shift) % 3] ?? 0;
    return encoded.slice(starts[shift], end === 0 ? undefined : encoded.length - end);
  });
}

/** `-` or `/` starting a command-line switch, as each of the dashes Windows accepts. */
function windash(value: string, key: string): string[] {
  const positions: number[] = [];
  const pattern = /\B[-/]\b/g;
  for (let found = pattern.exec(value); found; found = pattern.exec(value)) positions.push(found.index);
  if (positions.length > WINDASH_MAX)
    throw new ModifierError("modifier 'windash'", `'${key}': more than ${WINDASH_MAX} switches in one windash value`);
  let variants = [value];
  for (const position of positions) {
    variants = variants.flatMap((variant) =>
      WINDASH_CHARS.map((dash) => variant.slice(0, position) + dash + variant.slice(position + 1)),
    );
  }
  return variants;
}

function expand(value: string, key: string, context: ItemContext): string[] {
  // `\%` is a literal percent sign, never the start of a placeholder. Each placeholder is
  // replaced where it stands (never "the first text that looks like it").
  let variants = [''];
  let rest = 0;
  for (const found of value.matchAll(/(?<!\\)%([A-Za-z0-9_.-]+)%/g)) {
    const name = found[1] ?? '';
    const replacements = context.placeholders[name];
    if (replacements === undefined)
      throw new ModifierError(
        "modifier 'expand'",
        `'${key}': placeholder %${name}% is not defined in the processing pipeline`,
      );
    const before = value.slice(rest, found.index).replaceAll('\\%', '%');
    variants = variants.flatMap((variant) => replacements.map((replacement: string) => variant + before + replacement));
    rest = found.index + found[0].length;
  }
  const tail = value.slice(rest).replaceAll('\\%', '%');
  return variants.map((variant) => variant + tail);
}
