/**
 * The project's Handlebars environment: strict mode (a missing variable throws
 * instead of rendering an empty string) and every helper registered here, once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { PRECOMPILED_TEMPLATES } from "./precompiled-templates";
import { PROJECT_ROOT } from "../files/project-root";
import { shellQuote } from "../text/shell-quote";
import { tomlFloat, tomlValue, type TomlValue } from "../text/toml-values";

export const TEMPLATES_DIR = join(PROJECT_ROOT, "templates");

const handlebars = Handlebars.create();

/** JSON rendering: safe quoting of strings and lists for YAML, TOML and JSON alike. */
handlebars.registerHelper("json", (value: unknown) => new handlebars.SafeString(JSON.stringify(value)));
handlebars.registerHelper("eq", (a: unknown, b: unknown) => a === b);
handlebars.registerHelper("join", (values: unknown[], separator: unknown) =>
  values.join(typeof separator === "string" ? separator : ", "),
);
/**
 * Strict mode only checks plain `{{variable}}` lookups, not helper arguments, so the
 * quoting helpers refuse a missing value themselves instead of rendering "undefined".
 */
function quotingHelper<T>(name: string, quote: (value: T) => string): Handlebars.HelperDelegate {
  return (value: T | undefined, options: Handlebars.HelperOptions) => {
    if (value === undefined) {
      const loc = (options as { loc?: { start?: { line: number; column: number } } }).loc?.start;
      const at = loc ? ` at template line ${loc.line}:${loc.column}` : "";
      throw new Error(`{{${name}}} got a value that is not defined${at}: a variable is missing from the template context`);
    }
    return quote(value);
  };
}
/** A TOML literal: strings escaped per the TOML spec, integers, booleans, inline arrays. */
handlebars.registerHelper("toml", quotingHelper<TomlValue>("toml", tomlValue));
/** A TOML float that reads back as a float even when whole ("0.0"), for Go float64 keys. */
handlebars.registerHelper("tomlFloat", quotingHelper<number>("tomlFloat", tomlFloat));
/** A single-quoted bash word: nothing inside is expanded by the shell. */
handlebars.registerHelper("sh", quotingHelper<string>("sh", shellQuote));
/** True when a value is present (0 and false count as present, unlike `#if`). */
handlebars.registerHelper("isSet", (value: unknown) => value !== undefined && value !== null);

/** How every template is compiled, at run time or ahead of it (build/precompile-templates.js). */
export const COMPILE_OPTIONS = { strict: true, noEscape: true } as const;

const cache = new Map<string, Handlebars.TemplateDelegate>();

/**
 * Compiles (once) and returns the template at `templates/<relativePath>`. A template the build
 * precompiled is used as it is while its source still matches the file (compiling the templates
 * was a good part of a dry run's time).
 */
export function template<T>(relativePath: string): (context: T) => string {
  let compiled = cache.get(relativePath);
  if (!compiled) {
    const source = readFileSync(join(TEMPLATES_DIR, relativePath), "utf8");
    const precompiled = PRECOMPILED_TEMPLATES[relativePath];
    compiled = precompiled?.source === source ? handlebars.template(precompiled.spec) : handlebars.compile(source, COMPILE_OPTIONS);
    cache.set(relativePath, compiled);
  }
  return compiled as (context: T) => string;
}

export { handlebars };
