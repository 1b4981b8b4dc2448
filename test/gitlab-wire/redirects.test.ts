/**
 * The admin token never follows a redirect. fetch strips Authorization on a cross-origin
 * redirect (WHATWG Fetch, "HTTP-redirect fetch" step 13), but not a custom header such as
 * PRIVATE-TOKEN: so the requester refuses every 3xx, and these tests show a second local
 * server, the redirect's target, never sees a request at all.
 */
import { createGitLabClient, createMergeRequestNotesClient } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { fakeClock } from "../onboard/helpers";
import { headerText, startHostileServer, type HostileServer } from "../support/hostile-server";

const TOKEN = "glpat-redirectVictim0123";
let gitlab: HostileServer;
let elsewhere: HostileServer;

beforeEach(async () => {
  elsewhere = await startHostileServer((_request, response) => response.end("[]"));
  gitlab = await startHostileServer();
});
afterEach(async () => {
  await gitlab.stop();
  await elsewhere.stop();
});

const client = () => createGitLabClient({ url: gitlab.url, token: TOKEN, tokenEnv: "GITLAB_TOKEN", clock: fakeClock() });
const failure = async (call: Promise<unknown>): Promise<GitLabApiError> => {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitLabApiError);
  return error as GitLabApiError;
};

test.each([301, 302, 303, 307, 308])("fails when GitLab answers %i to another origin, and the other origin never sees the token", async (status) => {
  gitlab.handle = (request, response) => {
    response.writeHead(status, { location: `${elsewhere.url}${request.url}&private_token=${TOKEN}` });
    response.end();
  };

  const error = await failure(client().listRunners({ runnerType: "instance_type" }, "list the instance runners"));

  expect(elsewhere.requests).toEqual([]);
  expect(gitlab.requests).toHaveLength(1); // refused, not retried
  expect(gitlab.requests[0].headers["private-token"]).toBe(TOKEN);
  expect(error.message).toContain(`redirect (${status}) to ${elsewhere.url}/api/v4/runners/all`);
  expect(error.message).toContain("the token is not sent there");
  expect(error.message).toContain("a proxy");
  expect(error.message).not.toContain(TOKEN);
  expect(error.message).not.toContain("private_token");
});

test("fails on a redirect that stays on GitLab's origin too, naming gitlab.url as the fix", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(301, { location: "/gitlab/api/v4/runners/7" });
    response.end();
  };

  const error = await failure(client().getRunner(7, "read runner #7"));

  expect(gitlab.requests).toHaveLength(1);
  expect(error.message).toContain(`redirect (301) to ${gitlab.url}/gitlab/api/v4/runners/7`);
  expect(error.message).toContain("set gitlab.url to the instance's root URL");
});

test("fails when a write is redirected: the create is sent once and never replayed elsewhere", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(307, { location: `${elsewhere.url}/api/v4/user/runners` });
    response.end();
  };
  const runner = { runner_type: "instance_type", description: "d", tag_list: [], run_untagged: false, locked: true, access_level: "not_protected", maximum_timeout: 3600, paused: false, maintenance_note: "" } as const;

  await failure(client().createRunner(runner, "create a runner"));

  expect(gitlab.requests.map((request) => request.method)).toEqual(["POST"]);
  expect(elsewhere.requests).toEqual([]);
});

test("the review note's client refuses a redirect the same way", async () => {
  gitlab.handle = (request, response) => {
    response.writeHead(302, { location: `${elsewhere.url}${request.url}` });
    response.end();
  };
  const notes = createMergeRequestNotesClient({ url: gitlab.url, token: TOKEN, tokenEnv: "GITLAB_REVIEW_TOKEN", clock: fakeClock() });

  const error = await failure(notes.listMergeRequestNotes({ projectId: 42, iid: 7 }, "read the notes"));

  expect(elsewhere.requests).toEqual([]);
  expect(headerText(gitlab.requests)).toContain(TOKEN);
  expect(error.message).toContain(`to ${elsewhere.url}/api/v4/projects/42/merge_requests/7/notes`);
});
