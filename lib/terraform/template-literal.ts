/**
 * Literal text in Terraform JSON.
 *
 * Terraform reads every string of a `.tf.json` file as a template: `${...}` is an
 * interpolation and `%{...}` a directive. Text that must arrive as written (startup
 * scripts, rendered config, model values, names) is escaped here and nowhere else:
 * `$${` and `%%{` are the template syntax's own escapes.
 *
 * cdktf's `Fn.rawString` does not fit: it is made for string literals inside HCL
 * expressions, so it also turns newlines and quotes into `\n` and `\"`, which a JSON
 * template keeps as backslashes, and it leaves `%{` alone.
 */

/**
 * cdktf's marker for a string token (`${TfToken[TOKEN.12]}`): a reference cdktf
 * resolves at synth. Everything between markers is literal text.
 */
const STRING_TOKEN_MARKER = /\$\{TfToken\[[a-zA-Z0-9:._-]+\]\}/g;

/** `text` escaped so that Terraform's template syntax reads it back unchanged. */
export function escapeTemplateLiteral(text: string): string {
  return text.replace(/\$\{/g, () => "$${").replace(/%\{/g, () => "%%{");
}

/**
 * A string cdktf has not resolved yet, with its literal parts escaped and its token
 * markers left as they are, so references still resolve.
 */
export function escapeLiteralParts(text: string): string {
  // Most strings of a stack hold no template syntax and no token marker (both contain "{"): kept as they are, cheaply.
  if (!text.includes("{")) return text;
  let result = "";
  let last = 0;
  for (const match of text.matchAll(STRING_TOKEN_MARKER)) {
    result += escapeBeforeReference(escapeTemplateLiteral(text.slice(last, match.index)));
    result += match[0];
    last = match.index + match[0].length;
  }
  return result + escapeTemplateLiteral(text.slice(last));
}

/**
 * A literal `$` right before a reference would make `$${ref}`, the escape of the
 * reference; an interpolated "$" keeps it a dollar sign.
 */
function escapeBeforeReference(literal: string): string {
  return literal.endsWith("$") ? `${literal.slice(0, -1)}\${"$"}` : literal;
}

/** cdktf's key for comments and construct metadata, which Terraform ignores. */
const COMMENT_KEY = "//";

/**
 * A Terraform element's configuration (as cdktf's `toTerraform()` returns it, before
 * tokens are resolved) with every literal string and map key escaped. Token objects
 * (references, function calls) are not plain objects and are left to cdktf.
 */
export function escapeLiteralText(value: unknown): unknown {
  if (typeof value === "string") return escapeLiteralParts(value);
  if (Array.isArray(value)) return value.map(escapeLiteralText);
  if (!isPlainObject(value)) return value;
  const escaped: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    escaped[key === COMMENT_KEY ? key : escapeLiteralParts(key)] = key === COMMENT_KEY ? inner : escapeLiteralText(inner);
  }
  return escaped;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
