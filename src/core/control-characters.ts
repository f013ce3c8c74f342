// Control characters in user-supplied text: names and paths refuse them.

/** Whether the text holds a C0 control character (U+0000–U+001F: tab, newline, NUL…) or DEL (U+007F). */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x1f || code === 0x7f) return true;
  }
  return false;
}
