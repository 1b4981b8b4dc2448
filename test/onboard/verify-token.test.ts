/** Checking a stored runner token with POST /runners/verify, and the traces that check leaves in GitLab. */
import { createGitLabClient, type GitLabClient } from "../../lib/gitlab/client";
import { checkRunnerToken, TOKEN_CHECK_SYSTEM_ID } from "../../lib/gitlab/verify-token";
import { LEGACY_SYSTEM_ID } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
let client: GitLabClient;

beforeEach(async () => {
  client = createGitLabClient({ url: gitlab.fake.url, token: gitlab.fake.adminToken, tokenEnv: "GITLAB_TOKEN", clock: fakeClock() });
});

test("the gitlab.fake, like GitLab, records a manager for every verify call", async () => {
  const runner = gitlab.fake.seedRunner();

  await fetch(`${gitlab.fake.url}/api/v4/runners/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: runner.token }) });

  expect(runner.managers.map((manager) => manager.system_id)).toEqual([LEGACY_SYSTEM_ID]);
});

test("a working token verifies, names its runner, and leaves no manager behind", async () => {
  const runner = gitlab.fake.seedRunner();
  gitlab.fake.addManager(runner.id, 60_000, "s_real");

  const check = await checkRunnerToken(client, runner.token, runner.id, "shard a");

  expect(check).toEqual({ valid: true, runnerId: runner.id, tokenExpiresAt: null, matchesRunner: true });
  expect(runner.managers.map((manager) => manager.system_id)).toEqual(["s_real"]);
  expect(gitlab.fake.writeCalls().map((call) => [call.method, call.path, call.body.system_id])).toEqual([
    ["POST", "/api/v4/runners/verify", TOKEN_CHECK_SYSTEM_ID],
    ["DELETE", "/api/v4/runners/managers", TOKEN_CHECK_SYSTEM_ID],
  ]);
});

test("a token of another runner verifies but does not match", async () => {
  const mine = gitlab.fake.seedRunner();
  const other = gitlab.fake.seedRunner();

  const check = await checkRunnerToken(client, other.token, mine.id, "shard a");

  expect(check).toMatchObject({ valid: true, runnerId: other.id, matchesRunner: false });
});

test("a reset token is reported as invalid, not as a GitLab failure", async () => {
  const runner = gitlab.fake.seedRunner();
  const old = runner.token;
  await client.resetRunnerToken(runner.id, "reset");

  const check = await checkRunnerToken(client, old, runner.id, "shard a");

  expect(check).toEqual({ valid: false, reason: expect.stringContaining("403") });
  expect(runner.managers).toEqual([]);
});

test("verify is retried after a 5xx: asking again only refreshes a contact time", async () => {
  const runner = gitlab.fake.seedRunner();
  gitlab.fake.failNext("POST", /^\/runners\/verify$/, 1, 502);

  const check = await checkRunnerToken(client, runner.token, runner.id, "shard a");

  expect(check.valid).toBe(true);
  expect(runner.managers).toEqual([]);
});

test("deleting a manager GitLab does not know answers false", async () => {
  const runner = gitlab.fake.seedRunner();

  expect(await client.deleteRunnerManager(runner.token, "s_gone", "delete")).toBe(false);
});

test("lists a runner's running jobs over all pages", async () => {
  const runner = gitlab.fake.seedRunner();
  for (let index = 0; index < 130; index += 1) gitlab.fake.addJob(runner.id, "running");
  gitlab.fake.addJob(runner.id, "success");

  const running = await client.listRunnerJobs(runner.id, "running", "list jobs");

  expect(running).toHaveLength(130);
  expect(new Set(running.map((job) => job.status))).toEqual(new Set(["running"]));
});
