/** The stand-in itself answers as gitlab-api.md says GitLab does; the onboarding tests rely on it. */
import { FakeGitLab } from "../support/fake-gitlab";

let fake: FakeGitLab;
beforeEach(async () => {
  fake = new FakeGitLab();
  await fake.start();
});
afterEach(() => fake.stop());

function get(path: string, token = fake.adminToken) {
  return fetch(`${fake.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": token } });
}

test("paginates with GitLab's headers and absolute Link URLs that keep the query", async () => {
  for (let index = 0; index < 5; index += 1) fake.seedRunner({ tag_list: ["a"] });

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
  fake.seedRunner();

  const response = await get("/runners/all?per_page=500");

  expect(response.headers.get("x-per-page")).toBe("100");
  expect(response.headers.get("x-next-page")).toBe("");
});

test("answers an invalid filter with 400 {error}, a bad token with 401, a non-admin with 403", async () => {
  expect([(await get("/runners/all?type=shared")).status, await (await get("/runners/all?type=shared")).json()]).toEqual([400, { error: "type does not have a valid value" }]);
  expect(await (await get("/runners/all", "glpat-wrong")).json()).toEqual({ message: "401 Unauthorized" });
  expect((await get("/runners/all", fake.userToken)).status).toBe(403);
});

test("answers unknown objects with {message} and unknown routes with {error}", async () => {
  expect(await (await get("/runners/999")).json()).toEqual({ message: "404 Not found" });
  expect(await (await get("/no/such/route")).json()).toEqual({ error: "404 Not Found" });
});

test("throttles like Rack::Attack", async () => {
  fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { retryAfterSeconds: 9 });

  const response = await get("/runners/all");

  expect(response.status).toBe(429);
  expect(response.headers.get("content-type")).toBe("text/plain");
  expect(await response.text()).toBe("Retry later\n");
  expect(response.headers.get("retry-after")).toBe("9");
  expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
});
