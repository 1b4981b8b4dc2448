/** What the user reads when GitLab cannot be used: plain words, exit 1, never a token. */
import { runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { createGitLabClient, type NewRunner } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import { randomText } from "../support/fake-gitlab";
import { closedPort, useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: gitlab.setup.model, env: gitlab.setup.env, ...fakeClock(), log: () => {}, retryTimeout: "10s", ...options });
}

function client(token = gitlab.fake.adminToken) {
  return createGitLabClient({ url: gitlab.fake.url, token, tokenEnv: "GITLAB_TOKEN", clock: fakeClock() });
}

function aRunner(change: Partial<NewRunner> = {}): NewRunner {
  return { ...desiredRunner(gitlab.setup.model, gitlab.setup.model.shards[0]), ...change };
}

test("fails when the token is wrong (401), naming the variable and not the token", async () => {
  const badToken = `glpat-${randomText(20)}`;

  const result = await onboard({ env: { ...gitlab.setup.env, GITLAB_TOKEN: badToken } });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("rejected the token in $GITLAB_TOKEN");
  expect(result.problems[0]).toContain("401");
  expect(JSON.stringify(result)).not.toContain(badToken);
});

test("fails when the token is not an administrator's (403), saying what is needed", async () => {
  const result = await onboard({ env: { ...gitlab.setup.env, GITLAB_TOKEN: gitlab.fake.userToken } });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toMatch(/refused .*403.*api scope.*administrator/);
  expect(JSON.stringify(result)).not.toContain(gitlab.fake.userToken);
});

test("fails when GitLab refuses a runner, quoting its {message} text", async () => {
  const error = await client()
    .createRunner(aRunner({ tag_list: [], run_untagged: false }), "create the runner of shard x")
    .catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(GitLabApiError);
  expect((error as Error).message).toContain("cannot create the runner of shard x: GitLab rejected the request");
  expect((error as Error).message).toContain("Tags list can not be empty when runner is not allowed to pick untagged jobs");
});

test("fails when GitLab refuses a parameter, quoting its {error} text", async () => {
  const error = await client()
    .createRunner(aRunner({ access_level: "everyone" as never }), "create the runner of shard x")
    .catch((caught: unknown) => caught);

  expect((error as Error).message).toContain("access_level does not have a valid value");
  expect((error as GitLabApiError).status).toBe(400);
});

test("fails when GitLab refuses an update, listing its {message: {field: [...]}} problems", async () => {
  const created = await client().createRunner(aRunner(), "create");

  const error = await client()
    .updateRunner(created.id, { tag_list: [], run_untagged: false }, "update runner")
    .catch((caught: unknown) => caught);

  expect((error as Error).message).toContain("tags_list can not be empty when runner is not allowed to pick untagged jobs");
  expect((error as Error).message).not.toContain(created.token);
});

test("fails when the host refuses connections on the first request, at once", async () => {
  const port = await closedPort();
  gitlab.remodel((model) => {
    model.gitlab.url = `http://127.0.0.1:${port}`;
  });
  const clock = fakeClock();

  const result = await onboard({ shards: ["small-amd64"], ...clock });

  expect(result.exitCode).toBe(1);
  expect(result.problems).toEqual([
    `cannot reach GitLab at http://127.0.0.1:${port}: the connection to 127.0.0.1:${port} was refused: nothing listens there. Check gitlab.url in the model (host and port) and that GitLab is running.`,
  ]);
  expect(clock.waits).toEqual([]);
});

test("fails when the host name does not resolve, without retrying", async () => {
  gitlab.remodel((model) => {
    model.gitlab.url = "https://gitlab.does-not-exist.invalid";
  });
  const clock = fakeClock();

  const result = await onboard({ shards: ["small-amd64"], ...clock, retryTimeout: "1s" });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("cannot reach GitLab at https://gitlab.does-not-exist.invalid");
});

test("fails when the URL serves a web page instead of the API", async () => {
  gitlab.remodel((model) => {
    model.gitlab.url = `${gitlab.fake.url}/html-site`;
  });

  const result = await onboard({ shards: ["small-amd64"] });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("does not look like a GitLab instance");
  expect(result.problems[0]).toContain("text/html");
  expect(result.problems[0]).toContain("gitlab.url");
});

test("fails when the URL has no /api/v4 (404 page)", async () => {
  gitlab.remodel((model) => {
    model.gitlab.url = `${gitlab.fake.url}/somewhere-else`;
  });

  const result = await onboard({ shards: ["small-amd64"] });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("does not look like a GitLab instance");
  expect(result.problems[0]).toContain("404");
});

test("fails when GitLab has no such route ({error: 404 Not Found}), as on an old GitLab", async () => {
  gitlab.fake.disableRoute("POST", /^\/user\/runners$/);

  const result = await onboard({ shards: ["small-amd64"] });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("has no such API route (POST /api/v4/user/runners answered 404");
  expect(result.problems[0]).toContain("16.0 or newer");
});

test("a missing runner reads as undefined, not as an error", async () => {
  expect(await client().getRunner(987654, "read runner")).toBeUndefined();
  expect(await client().deleteRunner(987654, "delete runner")).toBe(false);
});
