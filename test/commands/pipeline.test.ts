/**
 * `pipeline`: the jobs a models repository's .gitlab-ci.yml makes, before its first merge request, with
 * runner-fleet's component read from this toolkit's templates/runner-fleet.yml and GitLab's rules
 * evaluated by lib/ci/gitlab-ci/ (whose own tests are test/ci/gitlab-rules-evaluator.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatPipeline, runPipeline } from "../../app/commands/pipeline";
import { runInit } from "../../app/commands/init";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { runBin, STACK_TRACE_LINE } from "../support/cli";

const VERSION = toolkitVersion();
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pipeline-"));
  runInit({ dir: root, componentProject: "platform/runner-fleet", lockfile: false });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test("what init's .gitlab-ci.yml makes: the merge request's review and plan, the default branch's apply, the schedule's drift", () => {
  const result = runBin("pipeline", [], { cwd: root });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(result.stdout).toBe(
    [
      `${join(root, ".gitlab-ci.yml")}: the jobs GitLab would create`,
      "",
      "merge-request (a merge request into main):",
      "  prepare  prepare        on_success  npx --no-install runner-fleet prepare --require-engine",
      '  review   review         on_success  npx --no-install runner-fleet review --base "$CI_MERGE_REQUEST_DIFF_BASE_SHA" --markdown review.md --post',
      '  review   plan:generate  on_success  npx --no-install runner-fleet review --child-pipeline child-plan.yml --base "$CI_MERGE_REQUEST_DIFF_BASE_SHA" --mode plan --image "node:24-bookworm" --toolkit-command "npx --no-install runner-fleet" --toolkit-dir "node_modules/runner-fleet"',
      "  cells    plan           on_success  child pipeline: child-plan.yml (written by plan:generate)",
      "",
      "default-branch (a push to main, as a merge request's merge makes):",
      "  prepare  prepare         on_success  npx --no-install runner-fleet prepare --require-engine",
      '  review   apply:generate  on_success  if [ "${APPLY_ALL_CELLS:-}" = "true" ]; then ...',
      "  cells    apply           on_success  child pipeline: child-apply.yml (written by apply:generate)",
      "",
      "schedule (a scheduled pipeline on main):",
      '  review  drift:generate  on_success  npx --no-install runner-fleet review --child-pipeline child-drift.yml --mode drift --all --image "node:24-bookworm" --toolkit-command "npx --no-install runner-fleet" --toolkit-dir "node_modules/runner-fleet"',
      "  cells   drift           on_success  child pipeline: child-drift.yml (written by drift:generate)",
      "",
    ].join("\n"),
  );
});

test("the team's inputs and jobs count: another default branch, manual applies, a job of its own", () => {
  writeFileSync(
    join(root, ".gitlab-ci.yml"),
    [
      "include:",
      `  - component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${VERSION}`,
      "    inputs:",
      "      apply_mode: manual",
      "      toolkit_version: lockfile",
      "lint-docs:",
      "  stage: review",
      "  script: [make lint-docs]",
      '  rules: [{ if: $CI_PIPELINE_SOURCE == "merge_request_event" }]',
      "",
    ].join("\n"),
  );
  const view = runPipeline({ dir: root, defaultBranch: "trunk", events: ["merge-request", "default-branch"] });
  expect(view.events.map((event) => [event.event, event.created ? event.jobs.map((job) => job.name) : event.reason])).toEqual([
    ["merge-request", ["prepare", "review", "plan:generate", "plan", "lint-docs"]],
    ["default-branch", ["prepare", "apply:generate", "apply"]],
  ]);
  const apply = view.events[1].created ? view.events[1].jobs.find((job) => job.name === "apply:generate") : undefined;
  expect(apply?.runs.join("\n")).toContain('--apply-mode "${APPLY_MODE:-manual}"');
  expect(view.events[1].description).toBe("a push to trunk, as a merge request's merge makes");
  // --scripts: every line, the install and the version check included.
  expect(formatPipeline(view, true)).toContain("  prepare  prepare        on_success\n      npm ci --prefer-offline --no-audit --no-fund\n");
});

test("an include of another version is shown with this toolkit's component, and says so", () => {
  writeFileSync(join(root, ".gitlab-ci.yml"), "include:\n  - component: $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@9.9.9\n");
  expect(runPipeline({ dir: root, events: ["schedule"] }).notes).toEqual([
    `the include names runner-fleet@9.9.9; shown with the installed runner-fleet ${VERSION}'s component (npm ci installs the version package-lock.json pins)`,
  ]);
});

test("fails when there is no pipeline file, another component, or a construct it does not model; exit 2, one line", () => {
  rmSync(join(root, ".gitlab-ci.yml"));
  const missing = runBin("pipeline", [], { cwd: root });
  expect(missing.status).toBe(2);
  expect(missing.stderr).toBe(`error: ${join(root, ".gitlab-ci.yml")}: expected the models repository's pipeline (runner-fleet init writes one), received no such file\n`);

  writeFileSync(join(root, ".gitlab-ci.yml"), "include:\n  - component: $CI_SERVER_FQDN/platform/ci-templates/terraform@2.0.0\n");
  const other = runBin("pipeline", [], { cwd: root });
  expect(other.status).toBe(2);
  expect(other.stderr).toBe(
    `error: .gitlab-ci.yml: include:component "$CI_SERVER_FQDN/platform/ci-templates/terraform@2.0.0": expected runner-fleet's component, such as $CI_SERVER_FQDN/platform/runner-fleet/runner-fleet@${VERSION}; other components are not shown here\n`,
  );

  writeFileSync(join(root, ".gitlab-ci.yml"), "docs:\n  script: [make docs]\n  rules:\n    - changes: [docs/**]\n");
  const changes = runBin("pipeline", [], { cwd: root });
  expect(changes.status).toBe(2);
  expect(changes.stderr).toBe(`error: ${join(root, ".gitlab-ci.yml")}: docs: rules:changes is not supported by this evaluator\n`);
  expect(changes.stderr).not.toMatch(STACK_TRACE_LINE);
});
