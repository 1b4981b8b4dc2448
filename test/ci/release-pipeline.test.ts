/**
 * The releases of runner-fleet (ci/release/release.gitlab-ci.yml, included by this repository's
 * .gitlab-ci.yml after the component): which pipelines get the release jobs, what they run, and the
 * parts of the component the file restates. Tag pipelines follow doc/ci/variables/predefined_variables.md:
 * CI_COMMIT_TAG is set, CI_COMMIT_BRANCH is not, CI_PIPELINE_SOURCE is "push" (or "web", "api").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { pipelineYaml, resolvePipeline, resolvePipelineConfig, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";
import { evaluatePipeline, jobNames, type CreatedJob } from "../../lib/ci/gitlab-ci/pipeline";
import { mergeRequestVariables, projectVariables } from "../support/pipeline-variables";

const ROOT = join(__dirname, "..", "..");
const RELEASE_FILE = "ci/release/release.gitlab-ci.yml";
const RELEASE_JOBS = ["release:check", "release:npm", "release:catalog"];

const rootPipeline = resolvePipeline(ROOT);
/** A models repository's pipeline: the component alone, with its defaults. */
const component = resolvePipelineConfig(ROOT, "templates/runner-fleet.yml");
const release = parse(readFileSync(join(ROOT, RELEASE_FILE), "utf8")) as Record<string, unknown>;

const tagPush = (tag: string) => ({ ...projectVariables, CI_PIPELINE_SOURCE: "push", CI_COMMIT_TAG: tag, CI_COMMIT_REF_NAME: tag });
const defaultBranchPush = { ...projectVariables, CI_PIPELINE_SOURCE: "push", CI_COMMIT_BRANCH: "main", CI_COMMIT_REF_NAME: "main" };

function createdJobs(variables: Record<string, string>): readonly CreatedJob[] {
  const outcome = evaluatePipeline(rootPipeline, variables);
  if (!outcome.created) throw new Error(`pipeline not created: ${outcome.reason}`);
  return outcome.jobs;
}

const job = (jobs: readonly CreatedJob[], name: string) => jobs.find((entry) => entry.name === name)!.definition;

describe("a release tag", () => {
  it.each(["1.2.0", "0.1.0", "1.3.0-rc.1"])("%s: check, publish to npm, then the release (and the catalog's version), in that order", (tag) => {
    const jobs = createdJobs(tagPush(tag));
    expect(jobs.map((entry) => entry.name)).toEqual(RELEASE_JOBS);
    expect(jobs.every((entry) => entry.when === "on_success")).toBe(true);
    expect(job(jobs, "release:npm").needs).toEqual(["release:check"]);
    expect(job(jobs, "release:catalog").needs).toEqual(["release:check", "release:npm"]);
  });

  it("checks the versions before the tests, and packs what it tested; the release takes the changelog's notes", () => {
    const jobs = createdJobs(tagPush("1.2.0"));
    const check = job(jobs, "release:check");
    const script = check.script as string[];
    const at = (pattern: RegExp) => script.findIndex((line) => pattern.test(line));
    expect(at(/^npm ci\b/)).toBe(0);
    expect(at(/release-check\.js "\$CI_COMMIT_TAG" release-notes\.md$/)).toBeGreaterThan(at(/^npm ci\b/));
    expect(at(/npm test$/)).toBeGreaterThan(at(/release-check\.js/));
    expect(at(/npm pack --pack-destination release$/)).toBeGreaterThan(at(/npm test$/));
    expect(check.artifacts.paths).toEqual(["release-notes.md", "release/"]);

    // npm pack names the file <name>-<version>.tgz: the file publish-npm.sh is handed.
    const name = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string }).name;
    expect(job(jobs, "release:npm").script).toEqual([`sh ci/release/publish-npm.sh "$CI_COMMIT_TAG" "release/${name}-$CI_COMMIT_TAG.tgz"`]);
    expect(job(jobs, "release:catalog").release).toEqual({ tag_name: "$CI_COMMIT_TAG", name: "runner-fleet $CI_COMMIT_TAG", description: "./release-notes.md" });
  });

  it.each(["v1.2.0", "1.2", "nightly", "1.2.0+build.5", "1.2.0-"])("%s is no release: no pipeline at all", (tag) => {
    expect(jobNames(evaluatePipeline(rootPipeline, tagPush(tag)))).toBe("not created: no workflow rule matches");
  });
});

describe("every other pipeline", () => {
  const kinds: Array<[string, Record<string, string>]> = [
    ["merge request", mergeRequestVariables],
    ["push to the default branch", defaultBranchPush],
    ["Run pipeline", { ...defaultBranchPush, CI_PIPELINE_SOURCE: "web" }],
    ["schedule", { ...defaultBranchPush, CI_PIPELINE_SOURCE: "schedule" }],
    ["triggered", { ...defaultBranchPush, CI_PIPELINE_SOURCE: "pipeline", CELL_ID: "cell-7" }],
  ];

  it.each(kinds)("%s: the models pipeline's jobs, as a models repository gets them, and no release job", (_kind, variables) => {
    const names = createdJobs(variables).map((entry) => entry.name);
    expect(names.filter((name) => name.startsWith("release:"))).toEqual([]);
    expect(names).toEqual(jobNames(evaluatePipeline(pipelineYaml(resolvePipelineText(ROOT, "include:\n  - local: templates/runner-fleet.yml\n")), variables)));
  });
});

describe("what the release file restates of the component", () => {
  it("the component's workflow rules, in its order, then the release tag's", () => {
    const componentRules = (component.workflow as { rules: unknown[] }).rules;
    const releaseRules = (release.workflow as { rules: unknown[] }).rules;
    expect(releaseRules.slice(0, -1)).toEqual(componentRules);
    expect(releaseRules.at(-1)).toEqual({ if: "$CI_COMMIT_TAG =~ /^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$/" });
  });

  it("the component's stages, as .gitlab-ci.yml leaves its stage inputs, then the release's", () => {
    expect(release.stages).toEqual([...(component.stages as string[]), "release"]);
  });

  it("the release tag's pattern is the component's toolkit_version pattern (one number for both)", () => {
    const spec = (parse(readFileSync(join(ROOT, "templates", "runner-fleet.yml"), "utf8").split("\n---\n")[0]!) as { spec: { inputs: Record<string, { regex: string }> } }).spec;
    const toolkitVersion = new RegExp(spec.inputs.toolkit_version!.regex);
    const tagRule = (release[".release"] as { rules: Array<{ if: string }> }).rules[0]!.if;
    const tagPattern = new RegExp(/=~ \/(.*)\/$/.exec(tagRule)![1]!);
    for (const version of ["1.2.0", "0.1.0", "1.3.0-rc.1", "v1.2.0", "1.2", "lockfile"]) {
      expect([version, tagPattern.test(version)]).toEqual([version, version !== "lockfile" && toolkitVersion.test(version)]);
    }
  });
});
