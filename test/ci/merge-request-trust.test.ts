/**
 * Merge request pipelines run the merge request's own code (its .gitlab-ci.yml, package.json,
 * ci/). What keeps the admin token and write credentials out of them is GitLab's variable
 * protection (doc/ci/variables: protected variables reach only pipelines on protected refs;
 * since GitLab 18.x, with protect_merge_request_pipelines, MR pipelines between two protected
 * branches too, never a fork's), so our own pipeline must never need them there: otherwise
 * an operator would have to unprotect them. This checks every job of the merge request
 * pipeline and of its plan child, as the rules evaluator creates them.
 */
import { join } from "node:path";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { mergeRequestVariables, projectVariables } from "../support/pipeline-variables";
import { evaluatePipeline, type CreatedJob } from "../../lib/ci/gitlab-ci/pipeline";
import { resolvePipeline } from "../../lib/ci/gitlab-ci/include";

const ROOT = join(__dirname, "..", "..");
const project = projectVariables;
const mergeRequest = mergeRequestVariables;
/** Credentials only default-branch, triggered or deploying jobs may use: protected variables. */
const PROTECTED_ONLY = ["GITLAB_TOKEN", "MODELS_PUSH_TOKEN", "TF_HTTP_PASSWORD"];

const jobsOf = (yaml: string, variables: Record<string, string>): readonly CreatedJob[] => {
  const outcome = evaluatePipeline(yaml, variables);
  if (!outcome.created) throw new Error(`pipeline not created: ${outcome.reason}`);
  return outcome.jobs;
};
const mergeRequestJobs = [
  // .gitlab-ci.yml with the CI/CD component it includes, as GitLab merges them.
  ...jobsOf(resolvePipeline(ROOT), mergeRequest),
  ...jobsOf(renderChildPipeline({ base: "0123abcd", mode: "plan", cells: ["cell-1", "cell-2"] }), { ...mergeRequest, CI_PIPELINE_SOURCE: "parent_pipeline" }),
];

test("the merge request pipeline has its review and plan jobs (the check below looks at real jobs)", () => {
  expect(mergeRequestJobs.map((job) => job.name)).toEqual(expect.arrayContaining(["prepare", "review", "plan:generate", "plan", "plan:cell-1", "plan:cell-2"]));
});

test.each(PROTECTED_ONLY)("no job of a merge request pipeline uses %s", (variable) => {
  const users = mergeRequestJobs.filter((job) => JSON.stringify(job.definition).includes(variable));
  expect(users.map((job) => job.name)).toEqual([]);
});

test("no job of a merge request pipeline deploys to an environment (environment-scoped credentials stay with apply jobs)", () => {
  const deploying = mergeRequestJobs.filter((job) => job.definition.environment !== undefined && job.definition.environment?.action !== "prepare");
  expect(deploying.map((job) => job.name)).toEqual([]);
});

test("no job of a merge request pipeline onboards or applies", () => {
  const scripts = mergeRequestJobs.map((job) => ({ name: job.name, text: JSON.stringify([job.definition.before_script, job.definition.script]) }));
  expect(scripts.filter(({ text }) => /(bin\/|runner-fleet )onboard|--reviewed-plan|provision(?![^"]*--plan)[^"]*--apply/.test(text)).map(({ name }) => name)).toEqual([]);
});

test("the same checks do find the default branch's apply jobs (they are not vacuous)", () => {
  const push = { ...project, CI_PIPELINE_SOURCE: "parent_pipeline", CI_COMMIT_BRANCH: "main", CI_COMMIT_REF_NAME: "main" };
  const applyJobs = jobsOf(renderChildPipeline({ base: "0123abcd", mode: "apply", cells: ["cell-1"] }), push);
  expect(applyJobs.filter((job) => job.definition.environment !== undefined).map((job) => job.name)).toEqual(["apply:cell-1"]);
});
