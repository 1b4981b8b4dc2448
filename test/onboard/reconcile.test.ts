/** The onboarding lifecycle against the fake GitLab: create, no-op, drift, recovery, rotation, removal, dry run. */
import { existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { desiredRunner, maintenanceNote, runnerMarker } from "../../lib/gitlab/runner-spec";
import { cellTag } from "../../lib/model/cell-tag";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { runnerDescription, secretLocation } from "../../lib/model/names";
import { runnerModelSchema, type RunnerModelInput, type Shard } from "../../lib/model/schema";
import { GoogleSecretManagerStore } from "../../lib/secrets/google-secret-manager-store";
import { LocalSecretStore } from "../../lib/secrets/local-store";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import type { FakeModelSetup } from "../support/fake-gitlab-model";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock, runnerChanges } from "./helpers";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let setup: FakeModelSetup;
let progress: string[];

beforeEach(() => {
  fake = gitlab.fake;
  setup = gitlab.setup;
  progress = [];
});

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: setup.model, env: setup.env, ...fakeClock(), log: (line) => progress.push(line), ...options });
}

function storedFile(shard: Shard) {
  return join(setup.secretsDir, secretLocation(setup.model, shard).localFileName);
}

function stored(shard: Shard): { token: string; runnerId: number; gitlabUrl: string } {
  return JSON.parse(readFileSync(storedFile(shard), "utf8"));
}

function runnersOf(shard: Shard): FakeRunner[] {
  return [...fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(setup.model, shard)));
}

async function verifyStatus(token: string): Promise<number> {
  const response = await fetch(`${fake.url}/api/v4/runners/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, system_id: "s_test" }),
  });
  return response.status;
}

describe("first run", () => {
  test("creates one runner per shard with the model's settings and stores its token", async () => {
    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expect(result.shards.map((outcome) => [outcome.shard, outcome.action, outcome.tokenStored])).toEqual(
      setup.model.shards.map((shard) => [shard.name, "create", true]),
    );
    for (const shard of setup.model.shards) {
      const [runner, ...others] = runnersOf(shard);
      expect(others).toHaveLength(0);
      expect(runner).toMatchObject({
        runner_type: "instance_type",
        description: runnerDescription(setup.model, shard),
        // The model's tags, then the cell's (lib/model/cell-tag.ts).
        tag_list: [...shard.tags, cellTag(setup.model)],
        run_untagged: shard.run_untagged,
        locked: shard.locked,
        access_level: shard.access_level,
        paused: shard.paused,
        maximum_timeout: parseGoDurationSeconds(shard.maximum_timeout),
      });
      expect(runner.maintenance_note).toContain(`cell ${setup.model.cell.id}, shard ${shard.name}`);
      expect(stored(shard)).toMatchObject({ token: runner.token, runnerId: runner.id, gitlabUrl: fake.url });
      expect(await verifyStatus(stored(shard).token)).toBe(200);
    }
  });

  test("keeps secret files 0600 in a 0700 directory", async () => {
    await onboard();

    expect(statSync(setup.secretsDir).mode & 0o777).toBe(0o700);
    for (const shard of setup.model.shards) expect(statSync(storedFile(shard)).mode & 0o777).toBe(0o600);
  });

  test("sends the create with every setting the model decides", async () => {
    await onboard({ shards: ["large-amd64"] });

    const [create] = fake.requests.filter((request) => request.method === "POST" && request.path === "/api/v4/user/runners");
    expect(Object.keys(create.body).sort()).toEqual(
      ["access_level", "description", "locked", "maintenance_note", "maximum_timeout", "paused", "run_untagged", "runner_type", "tag_list"].sort(),
    );
  });
});

describe("later runs", () => {
  test("make no write calls when nothing changed (the token check leaves nothing behind)", async () => {
    await onboard();
    const writesAfterFirstRun = runnerChanges(fake.requests).length;

    const result = await onboard();

    expect(runnerChanges(fake.requests)).toHaveLength(writesAfterFirstRun);
    for (const runner of fake.runners.values()) expect(runner.managers).toEqual([]);
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["none", "none"]);
  });

  test("correct drift with a PUT of only the drifted fields", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const [runner] = runnersOf(shard);
    runner.tag_list = ["hand-edited"];
    runner.paused = !shard.paused;
    const before = fake.requests.length;

    const result = await onboard();

    const writes = runnerChanges(fake.requests.slice(before));
    expect(writes.map((request) => `${request.method} ${request.path}`)).toEqual([`PUT /api/v4/runners/${runner.id}`]);
    expect(Object.keys(writes[0].body).sort()).toEqual(["paused", "tag_list"]);
    expect(runner).toMatchObject({ tag_list: [...shard.tags, cellTag(setup.model)], paused: shard.paused });
    expect(result.shards[0]).toMatchObject({ action: "update", changedFields: expect.arrayContaining(["paused", "tag_list"]) });
  });

  test("recreate a runner deleted by hand and store its new token", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const oldToken = stored(shard).token;
    const [runner] = runnersOf(shard);
    fake.runners.delete(runner.id);

    const result = await onboard();

    const [recreated, ...others] = runnersOf(shard);
    expect(others).toHaveLength(0);
    expect(recreated.id).not.toBe(runner.id);
    expect(result.shards[0]).toMatchObject({ action: "create", runnerId: recreated.id, tokenStored: true });
    expect(result.shards[0].notes.join(" ")).toContain(`#${runner.id}`);
    expect(stored(shard)).toMatchObject({ token: recreated.token, runnerId: recreated.id });
    expect(stored(shard).token).not.toBe(oldToken);
  });

  test("adopt a runner found by its marker when no token is stored, without creating another", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const [runner] = runnersOf(shard);
    const lostToken = stored(shard).token;
    unlinkSync(storedFile(shard));

    const result = await onboard();

    expect(result.shards[0]).toMatchObject({ action: "adopt", runnerId: runner.id, tokenStored: true });
    expect(runnersOf(shard)).toHaveLength(1);
    expect(fake.requests.filter((request) => request.path === `/api/v4/runners/${runner.id}/reset_authentication_token`)).toHaveLength(1);
    expect(stored(shard).token).toBe(runner.token);
    expect(await verifyStatus(lostToken)).toBe(403);
  });

  test("a runner from before the cell's tag, its token lost: found by its description on any page of the owner's listing, then tagged", async () => {
    const shard = setup.model.shards[0];
    for (let index = 0; index < 150; index += 1) fake.seedRunner({ description: `someone else's runner ${index}`, tag_list: [...shard.tags] });
    await onboard({ shards: [shard.name] });
    const [runner] = runnersOf(shard);
    runner.tag_list = [...shard.tags];
    unlinkSync(storedFile(shard));

    const result = await onboard({ shards: [shard.name] });

    const listings = fake.requests.filter((request) => request.path === "/api/v4/runners/all");
    expect(listings.some((request) => new URLSearchParams(request.query).get("page") === "2")).toBe(true);
    expect(result.shards[0]).toMatchObject({ action: "adopt", runnerId: runner.id });
    expect(runnersOf(shard)).toHaveLength(1);
    expect(runner.tag_list).toEqual([...shard.tags, cellTag(setup.model)]);
    expect(fake.runners.size).toBe(151);
  });

  test("runners from before the cell's tag, tokens stored: a dry run shows the tag added, a run adds it with one PUT each, the next run writes nothing", async () => {
    await onboard();
    for (const shard of setup.model.shards) runnersOf(shard)[0].tag_list = [...shard.tags];

    const planned = await onboard({ dryRun: true });
    expect(planned.plan?.map((plan) => plan.steps.map((step) => (step.kind === "update-runner" ? Object.keys(step.changes) : step.kind)))).toEqual([[["tag_list"]], [["tag_list"]]]);
    expect(formatOnboardReport(planned)).toContain(`tag_list: ${JSON.stringify(setup.model.shards[0].tags)} -> ${JSON.stringify([...setup.model.shards[0].tags, cellTag(setup.model)])}`);

    const before = runnerChanges(fake.requests).length;
    const result = await onboard();
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["update", "update"]);
    expect(runnerChanges(fake.requests).slice(before).map((request) => request.method)).toEqual(["PUT", "PUT"]);
    for (const shard of setup.model.shards) expect(runnersOf(shard)[0].tag_list).toEqual([...shard.tags, cellTag(setup.model)]);

    const again = runnerChanges(fake.requests).length;
    await onboard();
    expect(runnerChanges(fake.requests)).toHaveLength(again);
  });
});

describe("group runners", () => {
  test("are created and found again with a group Owner's token, through the group's listing", async () => {
    setup = gitlab.remodel((model) => {
      for (const shard of model.shards) {
        shard.runner_type = "group";
        shard.group_id = 10;
      }
    });
    const env = { ...setup.env, GITLAB_TOKEN: fake.userToken };
    await onboard({ env });
    for (const shard of setup.model.shards) unlinkSync(storedFile(shard));
    const creates = fake.requests.filter((request) => request.path === "/api/v4/user/runners").length;

    const result = await onboard({ env });

    expect(result.shards.map((outcome) => outcome.action)).toEqual(["adopt", "adopt"]);
    expect(fake.requests.filter((request) => request.path === "/api/v4/user/runners")).toHaveLength(creates);
    expect(fake.requests.some((request) => request.path === "/api/v4/groups/10/runners")).toBe(true);
    expect([...fake.runners.values()].map((runner) => [runner.runner_type, runner.group_id, runner.token.slice(0, 8)])).toEqual([
      ["group_type", 10, "glrt-t2_"],
      ["group_type", 10, "glrt-t2_"],
    ]);
  });
});

test("fails when the stored runner has another type than the model asks for; --remove still clears it", async () => {
  await onboard({ shards: ["small-amd64"] });
  const instanceSetup = setup;
  setup = { ...instanceSetup, model: structuredClone(instanceSetup.model) };
  setup.model.shards[0].runner_type = "group";
  setup.model.shards[0].group_id = 10;

  const result = await onboard({ shards: ["small-amd64"] });
  const removed = await onboard({ shards: ["small-amd64"], remove: true });

  expect(result.exitCode).toBe(1);
  expect(result.problems[0]).toContain("GitLab cannot change a runner's type");
  expect(removed.exitCode).toBe(0);
  expect(fake.runners.size).toBe(0);
});

describe("--rotate", () => {
  test("stores a new token and the old one stops working", async () => {
    await onboard();
    const shard = setup.model.shards[1];
    const oldToken = stored(shard).token;

    const result = await onboard({ rotate: true, shards: [shard.name] });

    const newToken = stored(shard).token;
    expect(result.shards[0]).toMatchObject({ action: "rotate", tokenStored: true });
    expect(newToken).not.toBe(oldToken);
    expect(await verifyStatus(newToken)).toBe(200);
    expect(await verifyStatus(oldToken)).toBe(403);
    expect(JSON.parse(readFileSync(storedFile(shard), "utf8")).rotatedAt).toEqual(expect.any(String));
  });
});

describe("--remove", () => {
  test("deletes the runners from GitLab and their secrets", async () => {
    await onboard();

    const result = await onboard({ remove: true });

    expect(result.shards.map((outcome) => outcome.action)).toEqual(["delete", "delete"]);
    expect(fake.runners.size).toBe(0);
    for (const shard of setup.model.shards) expect(existsSync(storedFile(shard))).toBe(false);
  });
});

describe("--dry-run", () => {
  test("plans creates and writes nothing", async () => {
    const result = await onboard({ dryRun: true });

    expect(result.shards.map((outcome) => [outcome.action, outcome.dryRun])).toEqual([
      ["create", true],
      ["create", true],
    ]);
    expect(fake.writeCalls()).toHaveLength(0);
    expect(existsSync(setup.secretsDir)).toBe(false);
  });

  test("shows drifted fields with old and new values, and changes nothing", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const [runner] = runnersOf(shard);
    runner.maximum_timeout = 900;
    const before = fake.writeCalls().length;

    const result = await onboard({ dryRun: true });

    expect(result.shards[0]).toMatchObject({ action: "update", changes: [`maximum_timeout: 900 -> ${parseGoDurationSeconds(shard.maximum_timeout)}`] });
    expect(fake.writeCalls()).toHaveLength(before);
    expect(runner.maximum_timeout).toBe(900);
  });

  test("plans rotation and removal without doing them", async () => {
    await onboard();
    const tokens = setup.model.shards.map((shard) => stored(shard).token);
    const before = fake.writeCalls().length;

    const rotate = await onboard({ dryRun: true, rotate: true });
    const remove = await onboard({ dryRun: true, remove: true });

    expect(rotate.shards.map((outcome) => outcome.action)).toEqual(["rotate", "rotate"]);
    expect(remove.shards.map((outcome) => outcome.action)).toEqual(["delete", "delete"]);
    expect(fake.writeCalls()).toHaveLength(before);
    expect(setup.model.shards.map((shard) => stored(shard).token)).toEqual(tokens);
  });

  test("leaves a cloud secret store alone, so no credentials are needed", async () => {
    let clientsCreated = 0;
    const cloudModel = { ...setup.model, secrets: { ...setup.model.secrets, store: "google-secret-manager" as const } };
    const store = new GoogleSecretManagerStore(cloudModel, "acme-runners-cell-1", () => {
      clientsCreated += 1;
      throw new Error("no credentials here");
    });

    const result = await onboard({ runnerModel: cloudModel, dryRun: true, secretStore: store });

    expect(result.exitCode).toBe(0);
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["create", "create"]);
    expect(clientsCreated).toBe(0);
  });

  test("without a token, plans nothing and touches nothing", async () => {
    const result = await onboard({ dryRun: true, env: {} });

    expect(result.exitCode).toBe(0);
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["unchecked", "unchecked"]);
    expect(result.notices.join(" ")).toContain("$GITLAB_TOKEN is not set");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("input", () => {
  test("fails when the token variable is not set, naming it", async () => {
    await expect(onboard({ env: {} })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining("$GITLAB_TOKEN is not set") });
  });

  test("fails when --shard names no shard of the model", async () => {
    await expect(onboard({ shards: ["nope"] })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining("small-amd64, large-amd64") });
  });

  test("fails when --rotate and --remove are both given", async () => {
    await expect(onboard({ rotate: true, remove: true })).rejects.toMatchObject({ exitCode: 2 });
  });

  test("--shard limits the run to the named shards", async () => {
    const result = await onboard({ shards: ["large-amd64"] });

    expect(result.shards.map((outcome) => outcome.shard)).toEqual(["large-amd64"]);
    expect(fake.runners.size).toBe(1);
  });

  test("--concurrency 1 handles one shard after the other", async () => {
    await onboard({ concurrency: 1 });

    expect(progress.map((line) => line.replace(/: .*/, ""))).toEqual(["cell-1/small-amd64", "cell-1/small-amd64", "cell-1/large-amd64", "cell-1/large-amd64"]);
  });

  test("uses the local store in the model's directory", async () => {
    await onboard();
    const store = new LocalSecretStore(setup.model);

    expect(await store.read(setup.model.shards[0])).toMatchObject({ runnerId: runnersOf(setup.model.shards[0])[0].id });
  });
});

describe("tags GitLab normalises", () => {
  test("converge: a second run writes nothing when the model's tags have commas, spaces and duplicates", async () => {
    const written = structuredClone(setup.model) as RunnerModelInput;
    written.shards[0].tags = ["linux, docker", " docker ", "linux"];
    const model = runnerModelSchema.parse(written);
    await onboard({ runnerModel: model });
    const [runner] = runnersOf(model.shards[0]);
    expect(runner.tag_list).toEqual(["linux", "docker", cellTag(model)]);
    const writesAfterFirstRun = runnerChanges(fake.requests).length;

    const result = await onboard({ runnerModel: model });

    expect(runnerChanges(fake.requests)).toHaveLength(writesAfterFirstRun);
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["none", "none"]);
  });
});

describe("--dry-run prints the plan", () => {
  test("the plan a run would carry out, step by step, and the same steps in words", async () => {
    await onboard();
    const [small, large] = setup.model.shards;
    const [runner] = runnersOf(small);
    runner.paused = !small.paused;
    const duplicate = fake.seedRunner({ description: runnerDescription(setup.model, large), maintenance_note: maintenanceNote(setup.model, large), tag_list: [...desiredRunner(setup.model, large).tag_list] });
    const before = fake.writeCalls().length;

    const result = await onboard({ dryRun: true });

    expect(fake.writeCalls()).toHaveLength(before);
    expect(result.plan?.map((plan) => [plan.shard, plan.action, plan.steps.map((step) => step.kind)])).toEqual([
      [small.name, "update", ["update-runner"]],
      [large.name, "none", ["delete-duplicate"]],
    ]);
    expect(result.plan?.[0].steps[0]).toEqual({ kind: "update-runner", runnerId: runner.id, changes: { paused: small.paused } });
    const text = formatOnboardReport(result);
    expect(text).toContain(`1. update runner #${runner.id}: paused`);
    expect(text).toContain(`1. delete duplicate runner #${duplicate.id}`);
    // The plan is made from what was read, tokens aside: neither the stored tokens nor the runners' appear.
    const tokens = [...setup.model.shards.map((shard) => stored(shard).token), ...[...fake.runners.values()].map((entry) => entry.token)];
    for (const token of tokens) expect(JSON.stringify(result) + text).not.toContain(token);
  });

  test("a run without --dry-run reports outcomes, not a plan", async () => {
    const result = await onboard();

    expect(result.plan).toBeUndefined();
    expect(result.shards.map((outcome) => outcome.action)).toEqual(["create", "create"]);
  });
});

describe("typed failures", () => {
  test("each failed shard carries the kind of its failure with its message", async () => {
    const result = await onboard({ env: { ...setup.env, GITLAB_TOKEN: fake.userToken }, concurrency: 1 });

    expect(result.shards[0].failure).toEqual({ source: "gitlab", kind: "forbidden", message: result.shards[0].error });
    expect(result.shards[0].ok).toBe(false);
  });

  test("once GitLab is out of reach, the shards not yet started are not attempted", async () => {
    fake.failNext("GET", /^\/runners\/all$/, 10_000, 502);
    await onboard({ shards: [setup.model.shards[0].name], retryTimeout: "5s" });
    const oneShardsCalls = fake.requests.splice(0).length;

    const result = await onboard({ concurrency: 1, retryTimeout: "5s" });

    expect(result.exitCode).toBe(1);
    expect(result.shards[0].failure?.kind).toBe("gave-up");
    expect(result.shards[1]).toMatchObject({
      action: "unchecked",
      ok: false,
      failure: { kind: "not-attempted", message: `not attempted: GitLab is out of reach (see shard ${setup.model.shards[0].name})` },
    });
    // The second shard sent nothing: the run made the calls of the first shard alone.
    expect(fake.requests).toHaveLength(oneShardsCalls);
  });

  test("a step that fails ends its shard, and what was done before it is reported with the failure", async () => {
    await onboard();
    const shard = setup.model.shards[0];
    const [runner] = runnersOf(shard);
    unlinkSync(storedFile(shard));
    runner.paused = !shard.paused;
    fake.failNext("PUT", /^\/runners\/\d+$/, 1, 400);

    const result = await onboard({ shards: [shard.name] });

    // Planned: reset the token and store it, then update the drifted setting; the update is refused.
    expect(result.shards[0]).toMatchObject({ action: "adopt", ok: false, runnerId: runner.id, tokenStored: true, failure: { source: "gitlab", kind: "rejected" } });
    expect(result.shards[0].error).toContain(`update runner #${runner.id}`);
    expect(stored(shard)).toMatchObject({ runnerId: runner.id, token: runner.token });
    expect(runner.paused).toBe(!shard.paused);
  });

  test("a runner of the wrong type blocks its shard with a failure of its own kind, in a dry run too", async () => {
    await onboard({ shards: ["small-amd64"] });
    const changed = structuredClone(setup.model);
    changed.shards[0].runner_type = "group";
    changed.shards[0].group_id = 10;

    const result = await onboard({ runnerModel: changed, shards: ["small-amd64"], dryRun: true });

    expect(result.exitCode).toBe(1);
    expect(result.shards[0]).toMatchObject({ action: "blocked", failure: { kind: "wrong-runner-type" } });
  });
});
