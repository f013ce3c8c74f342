// The forms of Settings › Case work in words people type: durations such as 15m, 4h or 2d, and a
// template's tasks one per line, "(required)" at the end of a line requiring it.
import type { Static } from 'typebox';
import type { SlaPolicySchema, TemplateBody } from '../../../../src/cases/work/template-schemas.js';

export type SlaPolicy = Static<typeof SlaPolicySchema>;
export type TemplateInput = Static<typeof TemplateBody>;
export const slaSeverities = ['critical', 'high', 'medium', 'low'] as const;
const units: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `15m` → 900; empty → null; anything else → undefined (not a duration). */
export function parseSpan(text: string): number | null | undefined {
  const value = text.trim();
  if (value === '') return null;
  const match = /^(\d+)\s*([smhd])$/i.exec(value);
  const [, count, unit] = match ?? [];
  if (count === undefined || unit === undefined) return undefined;
  const seconds = Number(count) * (units[unit.toLowerCase()] ?? 1);
  return seconds > 0 ? seconds : undefined;
}

/** 900 → `15m`, in the largest unit that divides it. */
export function showSpan(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** Comma- or space-separated words, without empties. */
export function words(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((word) => word.trim())
    .filter((word) => word !== '');
}

/** One task per line; "(required)" at the end of a line requires it. */
export function parseTasks(text: string): TemplateInput['tasks'] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const required = /\(required\)$/i.test(line);
      return { title: required ? line.replace(/\(required\)$/i, '').trim() : line, required };
    });
}
