/**
 * The project's Handlebars environment: strict mode (a missing variable throws
 * instead of rendering an empty string) and every helper registered here, once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { PROJECT_ROOT } from "../project-root";

export const TEMPLATES_DIR = join(PROJECT_ROOT, "templates");

const handlebars = Handlebars.create();

/** JSON rendering: safe quoting of strings and lists for YAML, TOML and JSON alike. */
handlebars.registerHelper("json", (value: unknown) => new handlebars.SafeString(JSON.stringify(value)));
handlebars.registerHelper("eq", (a: unknown, b: unknown) => a === b);
handlebars.registerHelper("join", (values: unknown[], separator: unknown) =>
  values.join(typeof separator === "string" ? separator : ", "),
);

const cache = new Map<string, Handlebars.TemplateDelegate>();

/** Compiles (once) and returns the template at `templates/<relativePath>`. */
export function template<T>(relativePath: string): (context: T) => string {
  let compiled = cache.get(relativePath);
  if (!compiled) {
    const source = readFileSync(join(TEMPLATES_DIR, relativePath), "utf8");
    compiled = handlebars.compile(source, { strict: true, noEscape: true });
    cache.set(relativePath, compiled);
  }
  return compiled as (context: T) => string;
}

export { handlebars };
