/**
 * Every prepare, provision, review, status, import and simulate command line the README and docs/, the pipeline (.gitlab-ci.yml
 * with the CI/CD component it includes, and the component as a models repository includes it) and
 * the child pipelines show is one the options parsers accept: refusing combinations that mean
 * nothing must not refuse one a person or a pipeline is told to run.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import { prepareCommand } from "../../app/commands/prepare";
import { parsePrepareOptions } from "../../app/commands/prepare-options";
import { provisionCommand } from "../../app/commands/provision";
import { parseProvisionOptions } from "../../app/commands/provision-options";
import { reviewCommand } from "../../app/commands/review";
import { parseReviewOptions } from "../../app/commands/review-options";
import { statusCommand } from "../../app/commands/status";
import { importCommand } from "../../app/commands/import";
import { parseImportOptions } from "../../app/commands/import-options";
import { parseStatusOptions } from "../../app/commands/status-options";
import { simulateCommand } from "../../app/commands/simulate";
import { parseSimulateOptions } from "../../app/commands/simulate-options";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { REPO_ROOT } from "../support/cli";
import { markdownFilesUnder } from "../support/markdown-files";
import { parsedCommandLine } from "../support/command-line";
import { pipelineYaml, resolvePipeline, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";

const PARSERS = {
  prepare: (args: readonly string[]) => parsePrepareOptions(parsedCommandLine(prepareCommand(), args)).mode.kind,
  provision: (args: readonly string[]) => parseProvisionOptions(parsedCommandLine(provisionCommand(), args)).mode.kind,
  review: (args: readonly string[]) => parseReviewOptions(parsedCommandLine(reviewCommand(), args)).mode.kind,
  status: (args: readonly string[]) => (parseStatusOptions(parsedCommandLine(statusCommand(), args)).verifyTokens ? "verify" : "no-verify"),
  import: (args: readonly string[]) => (parseImportOptions(parsedCommandLine(importCommand(), args)).adopt ? "adopt" : "import"),
  simulate: (args: readonly string[]) => parseSimulateOptions(parsedCommandLine(simulateCommand(), args)).load.kind,
};
type Parsed = keyof typeof PARSERS;

/** Shell words of a simple command line: quotes removed, an expansion replaced by a stand-in value or its default. */
function words(line: string): string[] {
  const expanded = line
    .replace(/\$\{\w+:-([^}]*)\}/g, "$1")
    .replace(/\$\([^)]*\)/g, "HEAD~1")
    .replace(/\$\{?\w+\}?/g, "value");
  return [...expanded.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]);
}

/** How a line starts a toolkit command: this checkout's ./bin/<command> or ./bin/runner-fleet.js <command>, or the installed package's. */
const TOOLKIT = String.raw`(?:\.\/bin\/(?:runner-fleet\.js\s+)?|npx\s+--no-install\s+runner-fleet\s+)`;

/** `./bin/<command> ...` (or `npx --no-install runner-fleet <command> ...`) in a text, one per command (split at &&, ;, | and >, comments dropped). */
function commandLines(text: string, origin: string): { origin: string; command: Parsed; args: string[] }[] {
  return text
    .split("\n")
    .flatMap((line) => line.replace(/\s#\s.*$/, "").split(/&&|;|\||>/))
    // A command starts its part, after variables set for it; `echo '... ./bin/provision ...'` is prose.
    .map((part) => new RegExp(String.raw`^(?:(?:then|else|do)\s+)?(?:\w+=\S+\s+)*${TOOLKIT}(prepare|provision|review|status|import|simulate)\b(.*)$`).exec(part.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ origin, command: match[1] as Parsed, args: words(match[2]) }));
}

/** The script lines of a pipeline's jobs. */
function pipelineScripts(yaml: string): string {
  const jobs = Object.values(parseYaml(yaml) as Record<string, { script?: unknown }>);
  return jobs.flatMap((job) => (Array.isArray(job?.script) ? job.script.map(String) : [])).join("\n");
}

/** The sh and bash blocks of a Markdown file, continuation lines joined. */
function shellBlocksOf(file: string): string {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  return [...text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((match) => match[1].replace(/\\\n/g, " ")).join("\n");
}
const documents = ["README.md", ...markdownFilesUnder(join(REPO_ROOT, "docs")).map((file) => relative(REPO_ROOT, file))];
const ciFile = pipelineScripts(resolvePipeline(REPO_ROOT)).replace(/\\\n/g, " ");
const componentDefaults = pipelineScripts(pipelineYaml(resolvePipelineText(REPO_ROOT, "include:\n  - local: templates/runner-fleet.yml\n"))).replace(/\\\n/g, " ");
const installedToolkit = { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" };
const childPipelines = (["plan", "apply", "drift"] as const).flatMap((mode) => [
  pipelineScripts(renderChildPipeline({ mode, cells: ["cell-1"], removed: ["cell-9"], base: "HEAD~1", applyMode: "manual" })),
  pipelineScripts(renderChildPipeline({ mode, cells: ["cell-1"], removed: ["cell-9"], base: "HEAD~1", toolkit: installedToolkit })),
]);

const LINES = [
  ...documents.flatMap((file) => commandLines(shellBlocksOf(file), file === "README.md" ? "README.md" : "docs")),
  ...commandLines(ciFile, ".gitlab-ci.yml"),
  ...commandLines(componentDefaults, "component"),
  ...childPipelines.flatMap((text, index) => commandLines(text, `child pipeline (${["plan", "apply", "drift"][Math.floor(index / 2)]})`)),
];

test("finds the command lines it checks", () => {
  const seen = new Set(LINES.map((line) => `${line.command} in ${line.origin.replace(/ \(.*/, "")}`));
  for (const expected of ["provision in README.md", "prepare in docs", "provision in docs", "review in docs", "status in docs", "import in docs", "simulate in docs", "review in .gitlab-ci.yml", "prepare in component", "review in component", "provision in child pipeline"]) {
    expect(seen).toContain(expected);
  }
  expect(LINES.length).toBeGreaterThan(20);
});

test.each(LINES.map((line) => [line.origin, `${line.command} ${line.args.join(" ")}`, line] as const))("%s: %s parses into a mode", (_origin, _text, line) => {
  expect(typeof PARSERS[line.command](line.args)).toBe("string");
});
