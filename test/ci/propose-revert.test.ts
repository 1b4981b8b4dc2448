/**
 * ci/propose-revert.sh, the rollout's `rollback` job, run for real in a clone of a models repository whose
 * last commit merged a change to several cells, pushing to a local bare repository in GitLab's place (one
 * that takes push options, as GitLab does for merge_request.create).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
let scratch: string;
let clone: string;
let bare: string;
let merged: string;

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8", env: { PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "propose-revert-"));
  bare = join(scratch, "platform", "runner-fleet-models.git");
  mkdirSync(bare, { recursive: true });
  git(bare, "init", "--quiet", "--bare", "--initial-branch=main");
  git(bare, "config", "receive.advertisePushOptions", "true");
  clone = join(scratch, "clone");
  mkdirSync(join(clone, "models"), { recursive: true });
  git(clone, "init", "--quiet", "--initial-branch=main");
  for (const cell of ["cell-1", "cell-2"]) writeFileSync(join(clone, "models", `${cell}.yaml`), `runner_version: "18.0"\n`);
  git(clone, "add", ".");
  git(clone, "commit", "--quiet", "-m", "two cells");
  git(clone, "checkout", "--quiet", "-b", "bump");
  for (const cell of ["cell-1", "cell-2"]) writeFileSync(join(clone, "models", `${cell}.yaml`), `runner_version: "18.1"\n`);
  git(clone, "commit", "--quiet", "-am", "bump the runner everywhere");
  git(clone, "checkout", "--quiet", "main");
  git(clone, "merge", "--quiet", "--no-ff", "-m", "Merge branch 'bump'", "bump");
  merged = git(clone, "rev-parse", "HEAD").trim();
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const run = (env: Record<string, string>) =>
  spawnSync("bash", [join(ROOT, "ci", "propose-revert.sh"), "MODELS_PUSH_TOKEN"], {
    cwd: clone,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: "1", CI_COMMIT_SHA: merged, CI_SERVER_URL: join(scratch, "platform"), CI_PROJECT_PATH: "runner-fleet-models", CI_DEFAULT_BRANCH: "main", ...env },
  });

it("pushes a branch that reverts the merge against the default branch before it, and opens a merge request for it", () => {
  const result = run({ MODELS_PUSH_TOKEN: "push-token-value" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const branch = `runner-fleet/revert-${merged.slice(0, 8)}`;
  expect(result.stdout).toContain(`propose-revert: pushed ${branch} and opened a merge request that reverts ${merged.slice(0, 8)}; nothing changes until it is merged`);
  expect(git(bare, "show", `${branch}:models/cell-1.yaml`)).toBe('runner_version: "18.0"\n');
  expect(git(bare, "show", `${branch}:models/cell-2.yaml`)).toBe('runner_version: "18.0"\n');
  expect(git(bare, "rev-parse", `${branch}~1`).trim()).toBe(merged);
  // Nothing went to the default branch.
  expect(git(bare, "branch", "--list", "main")).toBe("");
  expect(readFileSync(join(clone, "models", "cell-1.yaml"), "utf8")).toBe('runner_version: "18.0"\n');
});

it("fails without the push token, saying how to revert by hand, and pushes nothing", () => {
  const result = run({});
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(`propose-revert: MODELS_PUSH_TOKEN is not set: revert by hand (GitLab's Revert button on the merged merge request, or git revert -m 1 ${merged.slice(0, 8)})`);
  expect(git(bare, "branch", "--list")).toBe("");
});
