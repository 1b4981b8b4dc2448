/**
 * Bringing an existing fleet's runners along, against the fake GitLab (test/support/fake-gitlab.ts):
 * import --adopt verifies the config.toml's glrt- token and stores it; onboard then adopts that
 * runner (no new runner, token kept for the old managers, settings brought in line, marked as the
 * fleet's); a second onboard does nothing. Legacy registration tokens and refused tokens are
 * reported and left for a new runner.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { runImport, type ImportOptions } from "../../app/commands/import";
import { formatOnboardReport, runOnboard } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { TOKEN_CHECK_SYSTEM_ID } from "../../lib/gitlab/verify-token";
import { loadModelFile } from "../../lib/model/load";
import { secretLocation } from "../../lib/model/names";
import { acquireCellLock, CellLockBusyError, STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock, runnerChanges } from "../onboard/helpers";
import { fixtureText, writeConfig } from "./support";

const gitlab = useFakeGitLab();
let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), "import-adopt-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const out = () => join(root, "models", "cell-9.yaml");
const env = () => ({ GITLAB_TOKEN: gitlab.fake.adminToken, [STATE_DIR_ENV]: join(root, "state") });

function importAdopting(configs: string[], options: Partial<ImportOptions> = {}) {
  return runImport({ configs, cell: "cell-9", cloud: "aws", secretsStore: "local", adopt: true, out: out(), env: env(), secretsBaseDir: root, ...options });
}

function onboard(dryRun = false) {
  return runOnboard({ model: out(), env: env(), secretsBaseDir: root, dryRun, ...fakeClock(), log: () => {} });
}

function storedToken(): { token: string; runnerId: number; gitlabUrl: string } {
  const loaded = loadModelFile(out());
  return JSON.parse(readFileSync(join(root, ".state", "secrets", secretLocation(loaded.model, loaded.model.shards[0]).localFileName), "utf8"));
}

/** A docker+machine runner registered long before runner-fleet, with a manager of the old fleet online. */
function seedOldRunner() {
  const runner = gitlab.fake.seedRunner({
    description: "aws autoscale (docker+machine)",
    tag_list: ["docker", "linux"],
    run_untagged: false,
    maximum_timeout: 7200,
    token: `glrt-t1_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`,
  });
  gitlab.fake.addManager(runner.id, 30_000, "s_0ldd0ckermachine");
  return runner;
}

it("adopts an existing runner: import --adopt stores its token, onboard corrects its tags without creating a runner, a second run does nothing", async () => {
  const old = seedOldRunner();
  const config = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root, tokens: [old.token], url: gitlab.fake.url });

  // 1. import --adopt: the token is verified and stored; the model asks for the runner as GitLab has it.
  const imported = await importAdopting([config.file]);
  expect(imported.shards).toEqual([expect.objectContaining({ shard: "aws-autoscale", adoptedRunnerId: old.id })]);
  const text = readFileSync(out(), "utf8");
  expect(text).not.toContain(old.token);
  expect(text).toContain(`shard aws-autoscale adopts runner #${old.id} ("aws autoscale (docker+machine)")`);
  const shard = parse(text).shards[0];
  expect(shard).toMatchObject({ description: "aws autoscale (docker+machine)", tags: ["docker", "linux"], run_untagged: false, locked: false, maximum_timeout: "2h" });
  expect(storedToken()).toMatchObject({ token: old.token, runnerId: old.id, gitlabUrl: gitlab.fake.url });
  // The check left no manager of its own behind, and changed nothing.
  expect(gitlab.fake.runners.get(old.id)!.managers.map((manager) => manager.system_id)).toEqual(["s_0ldd0ckermachine"]);
  expect(runnerChanges(gitlab.fake.requests)).toEqual([]);

  // The person reviewing the model adds a tag.
  writeFileSync(out(), text.replace("tags: [docker, linux]", "tags: [docker, linux, spot]"));

  // 2. The dry run lists the adoption and its changes, and changes nothing.
  const planned = await onboard(true);
  expect(planned.shards[0]).toMatchObject({ action: "adopt-existing", runnerId: old.id, dryRun: true });
  expect(planned.shards[0].changedFields).toEqual(expect.arrayContaining(["tag_list", "maintenance_note"]));
  expect(planned.shards[0].changedFields).not.toContain("run_untagged");
  expect(planned.shards[0].changes).toContain('tag_list: ["docker","linux"] -> ["docker","linux","spot","runner-fleet:cell-9"]');
  expect(formatOnboardReport(planned)).toContain(`aws-autoscale  would adopt runner #${old.id}: runner #${old.id} existed before runner-fleet`);
  expect(runnerChanges(gitlab.fake.requests)).toEqual([]);

  // 3. Onboard adopts it: no runner created, no token reset, tags corrected, marked as the fleet's.
  const adopted = await onboard();
  expect(adopted.shards[0]).toMatchObject({ action: "adopt-existing", ok: true, runnerId: old.id });
  const writes = runnerChanges(gitlab.fake.requests).map((request) => `${request.method} ${request.path}`);
  expect(writes).toEqual([`PUT /api/v4/runners/${old.id}`]);
  expect(gitlab.fake.runners.size).toBe(1);
  const runner = gitlab.fake.runners.get(old.id)!;
  expect(runner.tag_list).toEqual(["docker", "linux", "spot", "runner-fleet:cell-9"]);
  expect(runner.token).toBe(old.token);
  expect(runner.maintenance_note).toContain(runnerMarker(loadModelFile(out()).model, loadModelFile(out()).model.shards[0]));
  expect(runner.managers.map((manager) => manager.system_id)).not.toContain(TOKEN_CHECK_SYSTEM_ID);
  expect(storedToken()).toMatchObject({ token: old.token, runnerId: old.id });

  // 4. A second run finds the runner as the model wants it.
  const before = gitlab.fake.requests.length;
  const again = await onboard();
  expect(again.shards[0]).toMatchObject({ action: "none", ok: true, runnerId: old.id });
  expect(runnerChanges(gitlab.fake.requests.slice(before))).toEqual([]);
});

it("reports a registration token and a token GitLab refuses; those shards get a new runner at onboard", async () => {
  const refused = `glrt-t1_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const registration = `GR1348941${Math.random().toString(36).slice(2)}`;
  const a = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root, name: "a.toml", tokens: [registration], url: gitlab.fake.url });
  const b = writeConfig(fixtureText("docker-machine-aws.toml").replace("IdleCount = 2", "IdleCount = 3"), { dir: root, name: "b.toml", tokens: [refused], url: gitlab.fake.url });
  const imported = await importAdopting([a.file, b.file]);
  expect(imported.shards.map((shard) => shard.adoptedRunnerId)).toEqual([undefined, undefined]);
  expect(imported.notes).toEqual(
    expect.arrayContaining([
      `shard aws-autoscale: the token at ${a.file}:7:3 is a registration token (GR1348941...), not a runner's token; onboard creates a new runner`,
      expect.stringMatching(new RegExp(`^shard aws-autoscale-2: GitLab refuses the token at ${b.file}:7:3 \\(GitLab refused the token \\(403\\).*\\); onboard creates a new runner$`)),
    ]),
  );
  const text = readFileSync(out(), "utf8");
  expect(text).not.toContain(registration);
  expect(text).not.toContain(refused);
  expect(readFileSync(out(), "utf8")).not.toContain("Runners adopted");

  const result = await onboard();
  expect(result.shards.map((shard) => shard.action)).toEqual(["create", "create"]);
  expect(gitlab.fake.runners.size).toBe(2);
});

it("fails with exit 2 before anything is written when --adopt has no admin token", async () => {
  const config = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root, url: gitlab.fake.url });
  await expect(importAdopting([config.file], { env: {} })).rejects.toThrow(/^--adopt needs \$GITLAB_TOKEN/);
  expect(() => readFileSync(out())).toThrow();
  expect(gitlab.fake.requests).toEqual([]);
});

it("adopts a group runner as a group shard, and leaves a second runner of a merged shard alone, saying so", async () => {
  const group = gitlab.fake.seedRunner({ runner_type: "group_type", group_id: 10, description: "group runner", tag_list: ["docker"], run_untagged: false, maximum_timeout: 3600, token: `glrt-t2_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}` });
  const other = gitlab.fake.seedRunner({ runner_type: "group_type", group_id: 10, description: "its twin", tag_list: ["docker"], run_untagged: false, maximum_timeout: 3600, token: `glrt-t2_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}` });
  const fixture = fixtureText("docker-autoscaler-aws.toml");
  const one = writeConfig(fixture, { dir: root, name: "one.toml", tokens: [group.token], url: gitlab.fake.url });
  const two = writeConfig(fixture.replace('name = "docker autoscaler aws"', 'name = "twin"'), { dir: root, name: "two.toml", tokens: [other.token], url: gitlab.fake.url });
  const imported = await importAdopting([one.file, two.file], { region: "eu-west-1" });
  expect(imported.shards).toEqual([expect.objectContaining({ adoptedRunnerId: group.id })]);
  expect(imported.notes).toContain(`shard docker-autoscaler-aws: the token at ${two.file}:6:3 is runner #${other.id}'s; the shard adopts runner #${group.id}, so #${other.id} is left alone: remove it once the migration is done`);
  const shard = parse(readFileSync(out(), "utf8")).shards[0];
  expect(shard).toMatchObject({ runner_type: "group", group_id: 10, description: "group runner", managers: { count: 2 } });

  const result = await onboard();
  expect(result.shards[0]).toMatchObject({ action: "adopt-existing", ok: true, runnerId: group.id });
  expect(gitlab.fake.runners.size).toBe(2);
  expect(gitlab.fake.runners.get(other.id)!.maintenance_note).toBe("");
  expect(runnerChanges(gitlab.fake.requests).filter((request) => request.method === "POST" && request.path !== "/api/v4/runners/verify")).toEqual([]);
});

it("waits for an onboard run's lock on the cell before storing tokens, and gives up (exit 1) with nothing written", async () => {
  const old = seedOldRunner();
  const config = writeConfig(fixtureText("docker-machine-aws.toml"), { dir: root, tokens: [old.token], url: gitlab.fake.url });
  const held = await acquireCellLock({ stateDir: join(root, "state"), cell: "cell-9", command: "onboard" });
  const progress: string[] = [];
  try {
    await expect(importAdopting([config.file], { lockWaitMs: 300, log: (line) => progress.push(line) })).rejects.toBeInstanceOf(CellLockBusyError);
  } finally {
    await held.release();
  }
  expect(progress.join("\n")).toContain("on cell cell-9; waiting");
  expect(() => readFileSync(out())).toThrow();
  expect(await importAdopting([config.file])).toMatchObject({ shards: [expect.objectContaining({ adoptedRunnerId: old.id })] });
});
