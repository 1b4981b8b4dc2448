/**
 * TOML literals for rendered config.toml files. Values from the model end up in
 * gitlab-runner's config, so every string is escaped per the TOML spec rather
 * than trusted to be "simple".
 */

export type TomlScalar = string | number | boolean;
export type TomlValue = TomlScalar | readonly TomlScalar[];

/** A TOML basic string: quotes, backslashes and every control character escaped (TOML 1.0 section "String"). */
export function tomlString(text: string): string {
  let quoted = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') quoted += '\\"';
    else if (char === "\\") quoted += "\\\\";
    else if (char === "\n") quoted += "\\n";
    else if (char === "\t") quoted += "\\t";
    else if (char === "\r") quoted += "\\r";
    else if (code < 0x20 || code === 0x7f) quoted += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate is not a Unicode scalar value: TOML cannot carry it at all.
      throw new TypeError(`cannot write a lone UTF-16 surrogate (U+${code.toString(16)}) to TOML`);
    } else quoted += char;
  }
  return `${quoted}"`;
}

/** A TOML integer; refuses fractions so a float never silently becomes an int key. */
export function tomlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`expected an integer for TOML, received ${value}`);
  return String(value);
}

/**
 * A TOML float that always reads back as a float ("0.0", not "0"), for Go
 * float64 fields such as `scale_factor`.
 */
export function tomlFloat(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`expected a finite number for TOML, received ${value}`);
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Any value the renderer writes: strings quoted, integers as integers, booleans, inline arrays. */
export function tomlValue(value: TomlValue): string {
  if (Array.isArray(value)) return `[${value.map((item) => tomlValue(item)).join(", ")}]`;
  switch (typeof value) {
    case "string":
      return tomlString(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return Number.isInteger(value) ? tomlInteger(value) : tomlFloat(value);
    default:
      throw new TypeError(`cannot write ${typeof value} to TOML`);
  }
}
