/**
 * Templates compiled ahead of time, by their path under templates/. Empty here: the tests compile
 * each template on first use. The build replaces this module with every template precompiled, in
 * the command bundles and in dist/ (build/precompile-templates.js, through build/bundle-commands.js).
 */
import type Handlebars from "handlebars";

export interface PrecompiledTemplate {
  /** The template's text when it was compiled: the entry is used only while the file still reads the same. */
  readonly source: string;
  readonly spec: Parameters<typeof Handlebars.template>[0];
}

export const PRECOMPILED_TEMPLATES: Readonly<Record<string, PrecompiledTemplate>> = {};
