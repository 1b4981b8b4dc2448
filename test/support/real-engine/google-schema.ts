/**
 * The Google provider's attributes, as cdktf generated them from the provider's schema
 * (@cdktf/provider-google): each resource class has a getter per attribute, computed
 * ones included. The stand-ins use it to tell a computed attribute from a typo.
 */
import type { SchemaLookup } from "./provider-stand-ins";

const classes = new Map<string, Record<string, unknown> | null>();

function generatedClass(type: string, mode: "managed" | "data"): Record<string, unknown> | null {
  const module = `${mode === "data" ? "data-" : ""}${type.replace(/^google_/, mode === "data" ? "google-" : "").replace(/_/g, "-")}`;
  if (!classes.has(module)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exports = require(`@cdktf/provider-google/lib/${module}`) as Record<string, unknown>;
    const found = Object.values(exports).find(
      (candidate): candidate is { tfResourceType: string; prototype: Record<string, unknown> } =>
        typeof candidate === "function" && (candidate as { tfResourceType?: string }).tfResourceType === type,
    );
    classes.set(module, found ? found.prototype : null);
  }
  return classes.get(module) ?? null;
}

function camelCase(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

export const googleSchemaHasAttribute: SchemaLookup = (type, mode, attribute) => {
  const prototype = generatedClass(type, mode);
  if (!prototype) throw new Error(`no cdktf class for ${mode === "data" ? "data source" : "resource"} ${type} in @cdktf/provider-google`);
  const getter = camelCase(attribute);
  // cdktf renames attributes that clash with construct members (`provider` -> `providerAttribute`).
  return [getter, `${getter}Attribute`].some((name) => Object.getOwnPropertyDescriptor(prototype, name)?.get !== undefined);
};
