/**
 * `pipeline`: the pipeline a models repository's .gitlab-ci.yml makes, before its first merge request:
 * for a merge request, a push to the default branch and a schedule, the jobs GitLab would create, in
 * their stages, with when they run and what they run.
 *
 * The include of runner-fleet's component (`component: $CI_SERVER_FQDN/<group>/<project>/runner-fleet@<version>`)
 * is read from the installed toolkit's templates/runner-fleet.yml, the file GitLab's catalog serves for
 * that version; `local:` includes from the repository. GitLab's rules are evaluated by the model of its
 * behaviour the component's own tests use (lib/ci/gitlab-ci/: includes and inputs, `rules:if`,
 * `workflow:rules`, `extends`, `needs`), which refuses what it does not model (`rules:changes`,
 * `only`/`except`, `include:project`...) rather than guess: GitLab's own check is the merge request's
 * pipeline, or the project's pipeline editor ("Validate" against a branch).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, withDefault } from "../cli/options";
import { PROJECT_ROOT } from "../../lib/files/project-root";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { pipelineYaml, resolvePipelineText, type ComponentResolver } from "../../lib/ci/gitlab-ci/include";
import { evaluatePipeline, type PipelineOutcome } from "../../lib/ci/gitlab-ci/pipeline";
import { UserInputError } from "../../lib/process/errors";

export const PIPELINE_EVENTS = ["merge-request", "default-branch", "schedule"] as const;
export type PipelineEvent = (typeof PIPELINE_EVENTS)[number];

export interface PipelineOptions {
  /** @default "." */
  readonly dir?: string;
  /** @default ".gitlab-ci.yml" */
  readonly file?: string;
  /** @default - every event */
  readonly events?: readonly PipelineEvent[];
  /** @default "main" */
  readonly defaultBranch?: string;
}

export interface ShownJob {
  readonly name: string;
  readonly stage: string;
  readonly when: string;
  /** before_script, then script; a trigger job: what it triggers. */
  readonly runs: readonly string[];
}

export interface PipelineView {
  readonly file: string;
  readonly notes: readonly string[];
  readonly events: ReadonlyArray<{ readonly event: PipelineEvent; readonly description: string } & ({ readonly created: true; readonly jobs: readonly ShownJob[] } | { readonly created: false; readonly reason: string })>;
}

/** The predefined variables of each event's pipeline (GitLab's doc/ci/variables/predefined_variables.md). */
function eventVariables(event: PipelineEvent, defaultBranch: string): { description: string; variables: Record<string, string> } {
  const project = { CI_DEFAULT_BRANCH: defaultBranch, CI_PROJECT_ID: "1", CI_SERVER_URL: "https://gitlab.example.com", CI_SERVER_FQDN: "gitlab.example.com" };
  const onDefault = { ...project, CI_COMMIT_BRANCH: defaultBranch, CI_COMMIT_REF_NAME: defaultBranch };
  switch (event) {
    case "merge-request":
      return {
        description: `a merge request into ${defaultBranch}`,
        variables: {
          ...project,
          CI_PIPELINE_SOURCE: "merge_request_event",
          CI_COMMIT_REF_NAME: "a-change",
          CI_MERGE_REQUEST_IID: "1",
          CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "a-change",
          CI_MERGE_REQUEST_TARGET_BRANCH_NAME: defaultBranch,
          CI_MERGE_REQUEST_DIFF_BASE_SHA: "0000000000000000000000000000000000000000",
        },
      };
    case "default-branch":
      return { description: `a push to ${defaultBranch}, as a merge request's merge makes`, variables: { ...onDefault, CI_PIPELINE_SOURCE: "push" } };
    case "schedule":
      return { description: `a scheduled pipeline on ${defaultBranch}`, variables: { ...onDefault, CI_PIPELINE_SOURCE: "schedule" } };
  }
}

/** runner-fleet's component from the installed toolkit; any other component is refused, named. */
function componentFile(notes: string[]): ComponentResolver {
  return (address, where) => {
    const match = /^(?:\$CI_SERVER_FQDN|[\w.-]+(?::\d+)?)\/(?:[\w.-]+\/)+runner-fleet@(\S+)$/.exec(address);
    if (!match) {
      throw new UserInputError(`${where}: include:component ${JSON.stringify(address)}: expected runner-fleet's component, such as $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${toolkitVersion()}; other components are not shown here`);
    }
    const file = join(PROJECT_ROOT, "templates", "runner-fleet.yml");
    if (match[1] !== toolkitVersion()) {
      notes.push(`the include names runner-fleet@${match[1]}; shown with the installed runner-fleet ${toolkitVersion()}'s component (npm ci installs the version package-lock.json pins)`);
    }
    return { file: `runner-fleet@${toolkitVersion()}:templates/runner-fleet.yml`, text: readFileSync(file, "utf8") };
  };
}

function shownJobs(outcome: Extract<PipelineOutcome, { created: true }>): ShownJob[] {
  return outcome.jobs.map((job) => {
    const definition = job.definition;
    const lines = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : []);
    const trigger = definition.trigger as { include?: Array<{ artifact?: string; job?: string }> } | undefined;
    const runs = trigger
      ? (trigger.include ?? []).map((entry) => `child pipeline: ${entry.artifact ?? "?"}${entry.job ? ` (written by ${entry.job})` : ""}`)
      : [...lines(definition.before_script), ...lines(definition.script)];
    return { name: job.name, stage: String(definition.stage ?? "test"), when: job.when, runs };
  });
}

export function runPipeline(options: PipelineOptions = {}): PipelineView {
  const dir = resolve(options.dir ?? ".");
  const file = join(dir, options.file ?? ".gitlab-ci.yml");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UserInputError(`${file}: expected the models repository's pipeline (runner-fleet init writes one), received ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  const notes: string[] = [];
  let yaml: string;
  try {
    yaml = pipelineYaml(resolvePipelineText(dir, text, componentFile(notes)));
  } catch (error) {
    if (error instanceof UserInputError) throw error;
    throw new UserInputError(`${file}: ${(error as Error).message}`);
  }
  const events = (options.events ?? PIPELINE_EVENTS).map((event) => {
    const { description, variables } = eventVariables(event, options.defaultBranch ?? "main");
    let outcome: PipelineOutcome;
    try {
      outcome = evaluatePipeline(yaml, variables);
    } catch (error) {
      throw new UserInputError(`${file}: ${(error as Error).message}`);
    }
    return outcome.created ? { event, description, created: true as const, jobs: shownJobs(outcome) } : { event, description, created: false as const, reason: outcome.reason };
  });
  return { file, notes: [...new Set(notes)], events };
}

export function formatPipeline(view: PipelineView, scripts: boolean): string {
  const lines = [`${view.file}: the jobs GitLab would create`, ...view.notes.map((note) => `note: ${note}`)];
  for (const event of view.events) {
    lines.push("", `${event.event} (${event.description}):`);
    if (!event.created) {
      lines.push(`  no pipeline: ${event.reason}`);
      continue;
    }
    const width = (pick: (job: ShownJob) => string) => Math.max(...event.jobs.map((job) => pick(job).length));
    const [stage, name, when] = [width((job) => job.stage), width((job) => job.name), width((job) => job.when)];
    for (const job of event.jobs) {
      const main = job.runs.find((line) => !line.startsWith("npm ci ") && !/\/ci\/(build-checkout|check-toolkit-version|install-engine)\.sh\b/.test(line)) ?? job.runs.at(-1) ?? "";
      // One line a job: a multi-line script's first line, marked as continued.
      const [first, ...more] = main.split("\n");
      lines.push(`  ${job.stage.padEnd(stage)}  ${job.name.padEnd(name)}  ${job.when.padEnd(when)}  ${scripts ? "" : `${first}${more.length > 0 ? " ..." : ""}`}`.trimEnd());
      if (scripts) lines.push(...job.runs.map((line) => `      ${line.replace(/\n/g, "\n      ").trimEnd()}`));
    }
  }
  return `${lines.join("\n")}\n`;
}

export function pipelineCommand(): Command {
  return cliCommand("pipeline")
    .description("Show the jobs this repository's .gitlab-ci.yml makes for a merge request, a push to the default branch and a schedule (runner-fleet's component from the installed toolkit).")
    .addOption(withDefault(new Option("--event <event...>", "the pipelines to show").choices(PIPELINE_EVENTS), "all of them"))
    .addOption(withDefault(new Option("--file <path>", "the pipeline file"), ".gitlab-ci.yml", ".gitlab-ci.yml"))
    .addOption(withDefault(new Option("--default-branch <branch>", "the project's default branch"), "main", "main"))
    .option("--scripts", "every line each job runs (before_script and script), not only its main one")
    .addOption(jsonOption("print the jobs as JSON"))
    .addHelpText(
      "after",
      "\nExamples:\n  npx --no-install runner-fleet pipeline\n  npx --no-install runner-fleet pipeline --event merge-request --scripts\n" +
        "\nExit codes: 0 ok, 2 no pipeline file, or a construct it does not model (rules:changes, only/except, include:project...).",
    )
    .action((flags: { event?: PipelineEvent[]; file: string; defaultBranch: string; scripts?: boolean; json?: boolean }) => {
      const view = runPipeline({ file: flags.file, defaultBranch: flags.defaultBranch, ...(flags.event ? { events: flags.event } : {}) });
      process.stdout.write(flags.json ? `${JSON.stringify(view, null, 2)}\n` : formatPipeline(view, Boolean(flags.scripts)));
    });
}
