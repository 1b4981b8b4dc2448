/**
 * Answers that make no sense, from a local server standing in for a broken GitLab or
 * whatever a proxy puts in front of it. Each must end the call in bounded time with one
 * clear GitLabApiError (never a TypeError from deep inside gitbeaker), without echoing the
 * body, and without a retry of a write. The shapes GitLab really sends are in
 * /work/shared/docs/gitlab-api.md (runners listing: an array of {id: integer, ...}).
 */
import { createGitLabClient } from "../../lib/gitlab/client";
import { GitLabApiError } from "../../lib/gitlab/errors";
import { MAX_PAGES, PaginationGuard } from "../../lib/gitlab/wire/pagination-guard";
import { PaginationLoopError } from "../../lib/gitlab/wire/wire-failures";
import { fakeClock } from "../onboard/helpers";
import { json, startHostileServer, type HostileServer } from "../support/hostile-server";

const TOKEN = "glpat-junkAnswers01234567";
let gitlab: HostileServer;
beforeEach(async () => (gitlab = await startHostileServer()));
afterEach(async () => gitlab.stop());

const runner = (id: unknown) => ({ id, description: "d", paused: false, is_shared: true, runner_type: "instance_type", online: null, status: "never_contacted", ip_address: null, name: null, active: true });
const client = (extra: object = {}) => createGitLabClient({ url: gitlab.url, token: TOKEN, tokenEnv: "GITLAB_TOKEN", clock: fakeClock(), ...extra });
const failure = async (call: Promise<unknown>): Promise<GitLabApiError> => {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitLabApiError);
  expect((error as Error).message).not.toContain(TOKEN);
  return error as GitLabApiError;
};
const list = (extra: object = {}) => client(extra).listRunners({ runnerType: "instance_type" }, "list the instance runners");

test("fails when a 200 is an HTML page (a login page, a proxy's portal)", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<html><body>Sign in</body></html>");
  };
  const error = await failure(list());
  expect(error.kind).toBe("no-api");
  expect(error.message).toContain("answered 200 with text/html instead of JSON");
});

test("fails when the JSON is cut short, and does not retry a create on its account", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(201, { "content-type": "application/json" });
    response.end('{"id": 12, "token": "glrt-abc');
  };
  const created = client().createRunner(
    { runner_type: "instance_type", description: "d", tag_list: [], run_untagged: false, locked: true, access_level: "not_protected", maximum_timeout: 3600, paused: false, maintenance_note: "" },
    "create a runner",
  );
  const error = await failure(created);
  expect(error.kind).toBe("unexpected-answer");
  expect(error.message).toContain("JSON that does not parse");
  expect(error.message).not.toContain("glrt-abc");
  expect(gitlab.requests).toHaveLength(1);
});

test("fails when the body is 10 MB, without reading it all", async () => {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let written = 0;
  gitlab.handle = (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }); // chunked: no Content-Length to go by
    const more = () => {
      while (written < 10 * 1024 * 1024) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", more);
      }
      response.end();
    };
    response.on("error", () => undefined);
    more();
  };
  const startedAt = Date.now();
  const error = await failure(list());
  expect(error.message).toContain("with more than 4 MiB");
  expect(Date.now() - startedAt).toBeLessThan(5_000);
});

test("fails at once when Content-Length announces more than the cap", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 * 1024) });
    response.write("[");
  };
  const error = await failure(list());
  expect(error.message).toContain("with more than 4 MiB");
});

test("fails when ids have the wrong type", async () => {
  gitlab.handle = (_request, response) => json(response, [runner("12")]);
  const error = await failure(list());
  expect(error.kind).toBe("unexpected-answer");
  expect(error.message).toContain("0.id: Invalid input: expected number, received string");
});

test("fails when a listing's next page is a page already read", async () => {
  gitlab.handle = (request, response) => {
    const page = new URL(request.url!, gitlab.url).searchParams.get("page") ?? "1";
    const next = page === "1" ? "2" : "1"; // 1 -> 2 -> 1 -> ...
    json(response, [runner(Number(page))], 200, { link: `<${gitlab.url}/api/v4/runners/all?page=${next}&per_page=100&type=instance_type>; rel="next"` });
  };
  const error = await failure(list());
  expect(error.kind).toBe("unexpected-answer");
  expect(error.message).toContain("the listing /api/v4/runners/all loops");
  expect(gitlab.requests).toHaveLength(2);
});

test("fails when a listing's next page is the page itself (tag filters kept, as gitbeaker re-encodes them)", async () => {
  gitlab.handle = (request, response) => json(response, [runner(1)], 200, { link: `<${gitlab.url}${request.url}>; rel="next"` });
  const error = await failure(client().listRunners({ runnerType: "instance_type", tags: ["a", "b c"] }, "list runners"));
  expect(error.message).toContain("loops");
  expect(gitlab.requests.length).toBeLessThanOrEqual(2);
});

// The client stops at the cap it is given, here 20 pages; the cap every command's client has (none
// given) is MAX_PAGES, checked on the guard below: 1000 requests over HTTP cost ~1 CPU-s.
test("fails when a listing never ends, at the page cap", async () => {
  gitlab.handle = (request, response) => {
    const page = Number(new URL(request.url!, gitlab.url).searchParams.get("page") ?? "1");
    // Never empty: gitbeaker itself stops at an empty page.
    json(response, [runner(page)], 200, { link: `<${gitlab.url}/api/v4/runners/all?page=${page + 1}&per_page=100&type=instance_type>; rel="next"` });
  };
  const error = await failure(list({ maxPages: 20 }));
  expect(error.message).toContain("has more than 20 pages");
  expect(gitlab.requests).toHaveLength(20);
});

test("the page cap is 1000 pages unless one is given", () => {
  expect(MAX_PAGES).toBe(1000);
  const guard = new PaginationGuard();
  const page = (number: number) => new URL(`http://gitlab.test/api/v4/runners/all?page=${number}&per_page=100`);
  const next = (number: number) => `<http://gitlab.test/api/v4/runners/all?page=${number + 1}&per_page=100>; rel="next"`;
  for (let number = 1; number < 1000; number += 1) guard.check(page(number), next(number));
  expect(() => guard.check(page(1000), next(1000))).toThrow("has more than 1000 pages (the cap)");
});

test("the pagination guard keeps separate listings apart, and a short listing passes", () => {
  const guard = new PaginationGuard(3);
  const url = (query: string) => new URL(`http://gitlab.test/api/v4/runners/all?${query}`);
  guard.check(url("per_page=100"), '<http://gitlab.test/api/v4/runners/all?page=2&per_page=100>; rel="next"');
  guard.check(url("per_page=100&page=2"), null); // the end
  guard.check(url("per_page=100"), '<http://gitlab.test/api/v4/runners/all?page=2&per_page=100>; rel="next"'); // the same listing again, later
  guard.check(url("page=2&per_page=100"), '<http://gitlab.test/api/v4/runners/all?page=3&per_page=100>; rel="next"');
  expect(() => guard.check(url("page=3&per_page=100"), '<http://gitlab.test/api/v4/runners/all?page=4&per_page=100>; rel="next"')).toThrow(PaginationLoopError);
});

test("fails within the retry budget when the server accepts and never answers", async () => {
  gitlab.handle = () => undefined; // holds every request open
  const startedAt = Date.now();
  const error = await failure(list({ attemptTimeoutMs: 200, policy: { budgetMs: 1_000, baseDelayMs: 10, maxDelayMs: 50 }, clock: undefined }));
  const elapsed = Date.now() - startedAt;
  expect(error.kind).toBe("gave-up");
  expect(error.message).toContain("the request timed out");
  expect(gitlab.requests.length).toBeGreaterThan(1); // a GET is retried...
  expect(elapsed).toBeLessThan(1_000 + 200 + 500); // ...within budget plus one attempt
});

test("fails after one attempt when a create hangs (a create is never resent blindly)", async () => {
  gitlab.handle = () => undefined;
  const error = await failure(
    client({ attemptTimeoutMs: 200, clock: undefined }).createRunner(
      { runner_type: "instance_type", description: "d", tag_list: [], run_untagged: false, locked: true, access_level: "not_protected", maximum_timeout: 3600, paused: false, maintenance_note: "" },
      "create a runner",
    ),
  );
  expect(error.message).toContain("the request timed out");
  expect(error.outcomeUnknown).toBe(true);
  expect(gitlab.requests).toHaveLength(1);
});

test("fails with one short line when an error page is long, multi-line and echoes the token", async () => {
  gitlab.handle = (_request, response) => {
    response.writeHead(400, { "content-type": "text/html" });
    response.end(`<html>\n<p>Bad request from token ${TOKEN}</p>\n${"<div>filler</div>\n".repeat(3000)}</html>`);
  };
  const error = await failure(list());
  expect(error.message).not.toContain("\n");
  expect(error.message.length).toBeLessThan(400);
  expect(error.message).toContain('answered 400 "<html>"');
});

test("a token echoed in GitLab's own JSON error never reaches the message", async () => {
  gitlab.handle = (_request, response) => json(response, { message: `token ${TOKEN} is not allowed here` }, 422);
  const error = await failure(list()); // failure() checks the token is absent
  expect(error.message).toContain("answered 422");
});

test("fails within the attempt's time limit when the body drips and never ends (the limit covers the body)", async () => {
  const timers: NodeJS.Timeout[] = [];
  gitlab.handle = (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write("[");
    timers.push(setInterval(() => response.write(" "), 50));
  };
  const startedAt = Date.now();
  const error = await failure(list({ attemptTimeoutMs: 300, policy: { budgetMs: 0, baseDelayMs: 10, maxDelayMs: 10 }, clock: undefined }));
  timers.forEach(clearInterval);
  expect(error.message).toContain("the request timed out");
  expect(Date.now() - startedAt).toBeLessThan(2_000);
});
