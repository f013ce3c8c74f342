// Reads whose result the benchmark knows is there (an index within bounds, a figure it stored),
// stated as checks: bench/ does not assert non-null with `!`, and a miss here is a bug in the
// benchmark, which should stop it with a message rather than measure something else.

/** `items[index]`; throws if the index is out of bounds. */
export function at<T>(items: ArrayLike<T>, index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item at index ${index} of ${items.length}`);
  return item;
}

/** `value`, which the caller knows is set; throws naming `what` if it is not. */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}
