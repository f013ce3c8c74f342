// The time buckets the bar charts draw carry their start as `start`; recharts hands a tooltip or a
// click the bar's entry, whose `payload` is the bucket. Read it without trusting its shape.

/** The `start` (ISO) of the bucket behind a recharts bar entry, if it has one. */
export function bucketStart(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || !('payload' in entry)) return undefined;
  const bucket: unknown = entry.payload;
  if (typeof bucket !== 'object' || bucket === null || !('start' in bucket)) return undefined;
  return typeof bucket.start === 'string' ? bucket.start : undefined;
}
