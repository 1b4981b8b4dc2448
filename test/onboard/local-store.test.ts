/** The local secret store: private files, atomic writes, no secret in errors. */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalSecretStore } from "../../lib/secrets/local-store";
import { randomText } from "../support/fake-gitlab";
import { modelWith } from "../support/models";

const root = mkdtempSync(join(tmpdir(), "local-store-"));
let counter = 0;

function freshStore() {
  const dir = join(root, `store-${(counter += 1)}`);
  const model = modelWith("cell-1", (draft) => {
    draft.secrets.local_dir = dir;
  });
  return { store: new LocalSecretStore(model), shard: model.shards[0], dir };
}

function aToken() {
  return { token: `glrt-t1_${randomText(20)}`, runnerId: 7, gitlabUrl: "https://gitlab.example.com", tokenExpiresAt: null, createdAt: new Date().toISOString() };
}

test("round-trips a token in a 0600 file inside a 0700 directory, leaving no temporary file", async () => {
  const { store, shard, dir } = freshStore();
  const value = aToken();

  await store.write(shard, value);

  expect(await store.read(shard)).toEqual(value);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(store.fileOf(shard)).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir)).toEqual(["cell-1--small-amd64.json"]);
});

test("leaves the mode of an existing private directory alone: it did not create it", async () => {
  const { store, shard, dir } = freshStore();
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o750);

  await store.write(shard, aToken());

  expect(statSync(dir).mode & 0o7777).toBe(0o750);
  expect(statSync(store.fileOf(shard)).mode & 0o777).toBe(0o600);
});

test.each([
  ["a shared /tmp-like directory (1777)", 0o1777, "everyone"],
  ["a group-writable directory (0770)", 0o770, "its group"],
])("fails on %s, writing nothing and leaving its mode unchanged", async (_name, mode, who) => {
  const { store, shard, dir } = freshStore();
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, mode);

  await expect(store.write(shard, aToken())).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining(`${dir} is writable by ${who}`) });

  expect(statSync(dir).mode & 0o7777).toBe(mode);
  expect(readdirSync(dir)).toEqual([]);
});

test("replaces the token on a second write", async () => {
  const { store, shard } = freshStore();
  await store.write(shard, aToken());
  const second = aToken();

  await store.write(shard, second);

  expect((await store.read(shard))?.token).toBe(second.token);
});

test("reads nothing when no secret exists, and removing it twice says so", async () => {
  const { store, shard } = freshStore();
  await store.write(shard, aToken());

  expect(await store.remove(shard)).toBe(true);
  expect(await store.remove(shard)).toBe(false);
  expect(await store.read(shard)).toBeUndefined();
});

test("fails when the file is damaged, without echoing its content", async () => {
  const { store, shard, dir } = freshStore();
  const leaked = `glrt-t1_${randomText(20)}`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(store.fileOf(shard), `{"token": "${leaked}"`, { mode: 0o600 }); // private, as the store writes it: only the content is damaged

  const error = await store.read(shard).catch((caught: unknown) => caught as Error);

  expect(error).toMatchObject({ exitCode: 1, message: expect.stringContaining("not valid JSON") });
  expect((error as Error).message).not.toContain(leaked);
});
