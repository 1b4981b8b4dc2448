/** Quoting for values the renderers place in bash scripts. */

/**
 * One bash word that expands to exactly `text`: single quotes, with embedded
 * single quotes closed, escaped and reopened. Nothing inside is expanded.
 */
export function shellQuote(text: string): string {
  if (text.includes("\0")) throw new TypeError("a shell word cannot contain a NUL character");
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
