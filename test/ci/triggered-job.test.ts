/**
 * The component's provision:triggered job, its script run as a job's shell runs it (set -e, one line
 * after the other) in a clone of a models repository, with the toolkit replaced by a stand-in that
 * records each call (and writes the model, as `prepare --generate` does for a cell without one) and
 * the real ci/propose-generated-model.sh pushing to a local bare repository in GitLab's place.
 * A cell with no model in the repository is proposed in a merge request and nothing is provisioned;
 * a cell with one is provisioned and onboarded.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipelineYaml, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";
import { evaluatePipeline } from "../../lib/ci/gitlab-ci/pipeline";
import { projectVariables } from "../support/pipeline-variables";

const ROOT = join(__dirname, "..", "..");

let scratch: string;
let clone: string;
let bare: string;
let calls: string;
let script: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "triggered-job-"));
  calls = join(scratch, "calls.log");
  const toolkit = join(scratch, "toolkit.sh");
  // The toolkit's stand-in: records its arguments; `prepare --generate` writes the cell's model when it is missing.
  writeFileSync(
    toolkit,
    [
      "#!/bin/sh",
      `echo "$*" >> "${calls}"`,
      'if [ "$1" = prepare ] && [ ! -f "models/$CELL_ID.yaml" ]; then echo "cell: {id: $CELL_ID}" > "models/$CELL_ID.yaml"; fi',
    ].join("\n"),
  );
  const component = pipelineYaml(
    resolvePipelineText(ROOT, ["include:", "  - local: templates/runner-fleet.yml", "    inputs:", `      toolkit_command: sh ${toolkit}`, `      toolkit_dir: ${ROOT}`].join("\n")),
  );
  const outcome = evaluatePipeline(component, { ...projectVariables, CI_COMMIT_BRANCH: "main", CI_PIPELINE_SOURCE: "pipeline", CELL_ID: "cell-9" });
  if (!outcome.created) throw new Error(outcome.reason);
  const job = outcome.jobs.find((entry) => entry.name === "provision:triggered")!;
  script = ["set -e", ...(job.definition.script as string[])].join("\n");

  // GitLab's side: a bare repository that takes push options (merge_request.create ...).
  bare = join(scratch, "platform", "runner-fleet-models.git");
  mkdirSync(bare, { recursive: true });
  git(bare, "init", "--quiet", "--bare", "--initial-branch=main");
  git(bare, "config", "receive.advertisePushOptions", "true");
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

beforeEach(() => {
  rmSync(calls, { force: true });
  clone = join(scratch, `clone-${Date.now()}`);
  mkdirSync(join(clone, "models"), { recursive: true });
  git(clone, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(clone, "models", "cell-1.yaml"), "cell: {id: cell-1}\n");
  git(clone, "add", ".");
  git(clone, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "cell-1");
});

const runJob = (cell: string, extraEnv: Record<string, string> = {}) =>
  spawnSync("bash", ["-c", script], {
    cwd: clone,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      HOME: scratch,
      GIT_CONFIG_NOSYSTEM: "1",
      CELL_ID: cell,
      RUNNER_MODELS_DIR: "models",
      CI_SERVER_URL: join(scratch, "platform"),
      CI_PROJECT_PATH: "runner-fleet-models",
      CI_DEFAULT_BRANCH: "main",
      MODELS_PUSH_TOKEN: "push-token-value",
      GITLAB_TOKEN: "admin-token-value",
      ...extraEnv,
    },
  });
const calledSteps = () =>
  readFileSync(calls, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" ")[0]);

it("a cell with no model in the repository: its model is proposed in a merge request, and nothing is provisioned", () => {
  // A trigger naming the admin token's variable for the push is not heard: the job names the push token's itself.
  const result = runJob("cell-9", { MODELS_PUSH_TOKEN_ENV: "GITLAB_TOKEN" });
  expect(result.status).toBe(0);
  expect(calledSteps()).toEqual(["prepare"]);
  expect(result.stdout).toContain("propose-model: pushed runner-fleet/add-cell-9 and opened a merge request for models/cell-9.yaml");
  expect(result.stdout).toContain("models/cell-9.yaml is not in the repository: nothing was provisioned; merging its merge request applies it");
  expect(git(bare, "show", "runner-fleet/add-cell-9:models/cell-9.yaml")).toBe("cell: {id: cell-9}\n");
  expect(git(bare, "log", "-1", "--format=%s", "runner-fleet/add-cell-9").trim()).toBe("Add the runner model of cell-9");
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/admin-token-value|push-token-value/);
});

it("a cell whose model is in the repository: provisioned and onboarded, nothing proposed", () => {
  const result = runJob("cell-1");
  expect(result.status).toBe(0);
  expect(calledSteps()).toEqual(["prepare", "provision", "onboard"]);
  expect(result.stdout).not.toContain("propose-model");
});

it("fails when prepare refuses the trigger's variables (exit 2): nothing after it runs", () => {
  writeFileSync(join(clone, "refuse"), "");
  const toolkitRefusing = script.replace(/^set -e\n/, 'set -e\nif [ -f refuse ]; then sh() { shift; echo "$*" >> "$CALLS"; return 2; }; fi\n');
  const result = spawnSync("bash", ["-c", toolkitRefusing], { cwd: clone, encoding: "utf8", env: { PATH: process.env.PATH, HOME: scratch, CELL_ID: "cell-1", CALLS: calls } });
  expect(result.status).toBe(2);
  expect(calledSteps()).toEqual(["prepare"]);
});

it("a trigger's MODELS_PUSH_TOKEN_ENV cannot make the admin token the push token", () => {
  const result = runJob("cell-8", { MODELS_PUSH_TOKEN: "", MODELS_PUSH_TOKEN_ENV: "GITLAB_TOKEN" });
  expect(result.status).toBe(0);
  expect(result.stdout).toContain("propose-model: MODELS_PUSH_TOKEN is not set: models/cell-8.yaml is kept only as a job artifact");
  expect(git(bare, "branch", "--list", "runner-fleet/add-cell-8")).toBe("");
  expect(calledSteps()).toEqual(["prepare"]);
});
