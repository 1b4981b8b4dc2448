/** The stand-in itself answers as gitlab-api.md says GitLab does; the onboarding tests rely on it. */
import { useFakeGitLab } from "../support/fake-gitlab-setup";

const gitlab = useFakeGitLab();

function get(path: string, token = gitlab.fake.adminToken) {
  return fetch(`${gitlab.fake.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": token } });
}

test("paginates with GitLab's headers and absolute Link URLs that keep the query", async () => {
  for (let index = 0; index < 5; index += 1) gitlab.fake.seedRunner({ tag_list: ["a"] });

  const response = await get("/runners/all?type=instance_type&tag_list[]=a&per_page=2&page=2");

  expect(await response.json()).toHaveLength(2);
  expect(Object.fromEntries(["x-page", "x-per-page", "x-next-page", "x-prev-page", "x-total", "x-total-pages"].map((name) => [name, response.headers.get(name)]))).toEqual({
    "x-page": "2",
    "x-per-page": "2",
    "x-next-page": "3",
    "x-prev-page": "1",
    "x-total": "5",
    "x-total-pages": "3",
  });
  const next = response.headers.get("link")!.match(/<([^>]+)>; rel="next"/)![1];
  expect(new URL(next).searchParams.getAll("tag_list[]")).toEqual(["a"]);
  expect(new URL(next).searchParams.get("page")).toBe("3");
  expect(response.headers.get("link")).toContain('rel="last"');
});

test("caps per_page at 100 and leaves X-Next-Page empty on the last page", async () => {
  gitlab.fake.seedRunner();

  const response = await get("/runners/all?per_page=500");

  expect(response.headers.get("x-per-page")).toBe("100");
  expect(response.headers.get("x-next-page")).toBe("");
});

test("answers an invalid filter with 400 {error}, a bad token with 401, a non-admin with 403", async () => {
  expect([(await get("/runners/all?type=shared")).status, await (await get("/runners/all?type=shared")).json()]).toEqual([400, { error: "type does not have a valid value" }]);
  expect(await (await get("/runners/all", "glpat-wrong")).json()).toEqual({ message: "401 Unauthorized" });
  expect((await get("/runners/all", gitlab.fake.userToken)).status).toBe(403);
});

test("answers unknown objects with {message} and unknown routes with {error}", async () => {
  expect(await (await get("/runners/999")).json()).toEqual({ message: "404 Not found" });
  expect(await (await get("/no/such/route")).json()).toEqual({ error: "404 Not Found" });
});

test("throttles like Rack::Attack", async () => {
  gitlab.fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { retryAfterSeconds: 9 });

  const response = await get("/runners/all");

  expect(response.status).toBe(429);
  expect(response.headers.get("content-type")).toBe("text/plain");
  expect(await response.text()).toBe("Retry later\n");
  expect(response.headers.get("retry-after")).toBe("9");
  expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
});

test("lists a runner's managers whole, without pagination headers, as GitLab presents them", async () => {
  const runner = gitlab.fake.seedRunner();
  for (let index = 0; index < 25; index += 1) gitlab.fake.addManager(runner.id, 60_000);

  const response = await get(`/runners/${runner.id}/managers`);

  expect(await response.json()).toHaveLength(25);
  expect(response.headers.get("x-total")).toBeNull();
  expect(response.headers.get("link")).toBeNull();
});

test("pages merge request notes newest first, 20 at a time, unless asked otherwise", async () => {
  gitlab.fake.mergeRequests.addMergeRequest("42", 7);
  gitlab.fake.mergeRequests.seed("42", 7, Array.from({ length: 25 }, (_, index) => `note ${index}`));

  const first = await get("/projects/42/merge_requests/7/notes");
  const ascending = await get("/projects/42/merge_requests/7/notes?sort=asc&per_page=100");

  const bodies = async (response: Response) => ((await response.json()) as Array<{ body: string }>).map((note) => note.body);
  expect((await bodies(first)).slice(0, 2)).toEqual(["note 24", "note 23"]);
  expect(first.headers.get("x-total-pages")).toBe("2");
  expect((await bodies(ascending))[0]).toBe("note 0");
  expect((await get("/projects/42/merge_requests/8/notes")).status).toBe(404);
});

test("refuses writes to a read_api token with 403 insufficient_scope, and reads to nobody's project with 404", async () => {
  gitlab.fake.mergeRequests.addMergeRequest("42", 7);
  const post = (token: string) =>
    fetch(`${gitlab.fake.url}/api/v4/projects/42/merge_requests/7/notes`, { method: "POST", headers: { "PRIVATE-TOKEN": token, "content-type": "application/json" }, body: '{"body":"x"}' });

  const refused = await post(gitlab.fake.readOnlyToken);

  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ error: "insufficient_scope", scope: "api" });
  expect((await get("/projects/42/merge_requests/7/notes", gitlab.fake.readOnlyToken)).status).toBe(200);
  expect((await post(gitlab.fake.userToken)).status).toBe(404);
  expect((await post(gitlab.fake.adminToken)).status).toBe(201);
});

test("takes a CI job token on artifact downloads only", async () => {
  gitlab.fake.artifacts.add("42", "main", "build", "out/a.txt", "A");
  const withJobToken = (path: string) => fetch(`${gitlab.fake.url}/api/v4${path}`, { headers: { "JOB-TOKEN": gitlab.fake.jobToken } });

  const download = await withJobToken("/projects/42/jobs/artifacts/main/raw/out/a.txt?job=build");

  expect([download.status, await download.text()]).toEqual([200, "A"]);
  expect((await withJobToken("/projects/42/jobs/artifacts/main/raw/out/a.txt?job=test")).status).toBe(404);
  expect((await withJobToken("/runners/all")).status).toBe(401);
  expect(gitlab.fake.requests.map((request) => request.credentials)).toEqual([["job-token"], ["job-token"], ["job-token"]]);
});

test("refuses more than 50 tags on a create and on an update, as Ci::Runner#tag_constraints does", async () => {
  const send = (method: string, path: string, body: Record<string, unknown>) =>
    fetch(`${gitlab.fake.url}/api/v4${path}`, { method, headers: { "PRIVATE-TOKEN": gitlab.fake.adminToken, "content-type": "application/json" }, body: JSON.stringify(body) });
  const tags = (count: number) => Array.from({ length: count }, (_, index) => `t${index}`);
  const refusal = { message: { tags_list: ["Too many tags specified. Please limit the number of tags to 50"] } };

  const tooMany = await send("POST", "/user/runners", { runner_type: "instance_type", tag_list: tags(51) });
  expect([tooMany.status, await tooMany.json()]).toEqual([400, refusal]);
  const fifty = await send("POST", "/user/runners", { runner_type: "instance_type", tag_list: tags(50) });
  expect(fifty.status).toBe(201);
  const { id } = (await fifty.json()) as { id: number };

  const update = await send("PUT", `/runners/${id}`, { tag_list: tags(51) });
  expect([update.status, await update.json()]).toEqual([400, refusal]);
  expect(gitlab.fake.runners.get(id)!.tag_list).toHaveLength(50);
});
