/**
 * The one GitLab client (lib/gitlab/client.ts): gitbeaker's calls and pagination on our
 * requester, the typed wrappers for what gitbeaker 43.8 lacks, answers checked against
 * GitLab's documented shapes, and the rule that no other module builds a client.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createGitLabClient } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
const client = (token = gitlab.fake.adminToken) => createGitLabClient({ url: gitlab.fake.url, token, tokenEnv: "GITLAB_TOKEN", clock: fakeClock() });
const gets = (path: RegExp) => gitlab.fake.requests.filter((request) => request.method === "GET" && path.test(request.path));

test("a listing follows GitLab's Link headers through every page, tags encoded as tag_list[]", async () => {
  for (let index = 0; index < 130; index += 1) gitlab.fake.seedRunner({ tag_list: ["a", "b c"] });
  gitlab.fake.seedRunner({ tag_list: ["a"] });

  const listed = await client().listRunners({ runnerType: "instance_type", tags: ["a", "b c"] }, "list runners");

  expect(listed).toHaveLength(130);
  const queries = gets(/\/runners\/all$/).map((request) => new URLSearchParams(request.query));
  expect(queries.map((query) => [query.get("page"), query.get("per_page"), query.getAll("tag_list[]")])).toEqual([
    [null, "100", ["a", "b c"]],
    ["2", "100", ["a", "b c"]],
  ]);
});

test("a group's runners come from the group's listing", async () => {
  gitlab.fake.seedRunner({ runner_type: "group_type", group_id: 10 });
  gitlab.fake.seedRunner({ runner_type: "group_type", group_id: 11 });

  const listed = await client(gitlab.fake.userToken).listRunners({ runnerType: "group_type", groupId: 10 }, "list runners");

  expect(listed.map((runner) => runner.runner_type)).toEqual(["group_type"]);
  expect(gets(/./).map((request) => request.path)).toEqual(["/api/v4/groups/10/runners"]);
});

test("a runner's managers are read in one request: GitLab does not paginate them", async () => {
  const runner = gitlab.fake.seedRunner();
  for (let index = 0; index < 120; index += 1) gitlab.fake.addManager(runner.id, 60_000);

  const managers = await client().listRunnerManagers(runner.id, "list managers");

  expect(managers).toHaveLength(120);
  expect(managers[0]).toMatchObject({ system_id: expect.stringMatching(/^s_/), status: "online" });
  expect(gets(/\/managers$/)).toHaveLength(1);
});

test("a runner's jobs are read through every page", async () => {
  const runner = gitlab.fake.seedRunner();
  for (let index = 0; index < 105; index += 1) gitlab.fake.addJob(runner.id, index % 2 === 0 ? "running" : "success");

  const running = await client().listRunnerJobs(runner.id, "running", "list jobs");

  expect(running).toHaveLength(53);
  expect(running.every((job) => job.status === "running")).toBe(true);
});

test("an update sends maintenance_note too, which gitbeaker's types leave out", async () => {
  const runner = gitlab.fake.seedRunner({ maintenance_note: "old" });

  const updated = await client().updateRunner(runner.id, { maintenance_note: "new note", tag_list: ["x"] }, "update");

  expect(updated).toMatchObject({ maintenance_note: "new note", tag_list: ["x"] });
  expect(gitlab.fake.runners.get(runner.id)).toMatchObject({ maintenance_note: "new note", tag_list: ["x"] });
});

test("a token reset answers the new token, and the old one stops working", async () => {
  const runner = gitlab.fake.seedRunner();
  const old = runner.token;

  const issued = await client().resetRunnerToken(runner.id, "reset");

  expect(issued).toEqual({ id: runner.id, token: gitlab.fake.runners.get(runner.id)!.token, token_expires_at: null });
  expect(issued.token).toMatch(/^glrt-t1_/);
  expect(gitlab.fake.tokenWorks(old)).toBe(false);
});

test("an answer that is not GitLab's documented shape fails with its own kind, without echoing the body", async () => {
  const runner = gitlab.fake.seedRunner();
  const leaked = `glrt-${"x".repeat(20)}`;
  gitlab.fake.answerNext("POST", /\/reset_authentication_token$/, 201, { token: 42, note: leaked });

  const error = await client()
    .resetRunnerToken(runner.id, "reset the token of runner #1")
    .catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(GitLabApiError);
  expect(error).toMatchObject({ kind: "unexpected-answer" });
  expect((error as Error).message).toContain(`cannot reset the token of runner #1: GitLab at ${gitlab.fake.url} answered POST /api/v4/runners/${runner.id}/reset_authentication_token`);
  expect((error as Error).message).toContain("token:");
  expect((error as Error).message).not.toContain(leaked);
});

test("a 412 or 409 is a conflict", async () => {
  const runner = gitlab.fake.seedRunner();
  gitlab.fake.answerNext("DELETE", /^\/runners\/\d+$/, 412, { message: "412 Precondition Failed" });

  const error = await client()
    .deleteRunner(runner.id, "delete")
    .catch((caught: unknown) => caught);

  expect(error).toMatchObject({ kind: "conflict", status: 412, transient: false });
  expect(gitlab.fake.runners.has(runner.id)).toBe(true);
});

test("each attempt has its own time limit: a slow read is tried again, a slow create is not (it may have happened)", async () => {
  // The limit leaves the request time to reach the stand-in on a loaded machine (at 50 ms a create could
  // time out before it was sent, and the test saw no POST); the stand-in answers long after the limit.
  gitlab.fake.latencyMs = 1_500;
  const clock = fakeClock();
  const slow = createGitLabClient({ url: gitlab.fake.url, token: gitlab.fake.adminToken, tokenEnv: "GITLAB_TOKEN", clock, attemptTimeoutMs: 250, policy: { budgetMs: 2_000, baseDelayMs: 500, maxDelayMs: 2_000 } });

  const read = await slow.getRunner(1, "read runner #1").catch((caught: unknown) => caught);
  const readAttempts = gitlab.fake.requests.length;
  const create = await slow
    .createRunner({ runner_type: "instance_type", description: "d", tag_list: ["a"], run_untagged: false, locked: false, access_level: "not_protected", maximum_timeout: 3600, paused: false, maintenance_note: "" }, "create")
    .catch((caught: unknown) => caught);

  expect(read).toMatchObject({ kind: "gave-up" });
  expect((read as Error).message).toContain("the request timed out");
  expect(readAttempts).toBe(clock.waits.length + 1);
  expect(readAttempts).toBeGreaterThan(1);
  expect(create).toMatchObject({ kind: "unreachable", outcomeUnknown: true });
  expect(gitlab.fake.requests.filter((request) => request.method === "POST")).toHaveLength(1);
});

test("gitbeaker's own failures never leak: every failure is a GitLabApiError", async () => {
  const error = await client("glpat-wrong")
    .getRunner(1, "read runner #1")
    .catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(GitLabApiError);
  expect(error).toMatchObject({ kind: "unauthorized", status: 401 });
});

test("only lib/gitlab/client.ts builds GitLab clients; only it and the requester import gitbeaker", () => {
  const root = join(__dirname, "..", "..");
  const sources = ["lib", "app", "stacks", "constructs", "bin"].flatMap((dir) => sourceFiles(join(root, dir)));
  const importers = sources.filter((file) => /from "@gitbeaker\//.test(readFileSync(file, "utf8"))).map((file) => relative(root, file));
  const builders = sources.filter((file) => /new (Gitlab|Runners|Users|MergeRequestNotes)\(/.test(readFileSync(file, "utf8"))).map((file) => relative(root, file));

  expect(importers.sort()).toEqual(["lib/gitlab/client.ts", "lib/gitlab/requester.ts"]);
  expect(builders).toEqual(["lib/gitlab/client.ts"]);
});

function sourceFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) || !name.includes(".") ? [path] : [];
  });
}
