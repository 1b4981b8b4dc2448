/**
 * The local secret store never follows a symlink and trusts only files of its own that
 * nobody else can read: a link planted at a secret's path or at the directory is refused,
 * and the file it points at is neither read nor written.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalSecretStore } from "../../lib/secrets/local-store";
import { SecretStoreError } from "../../lib/secrets/store";
import { modelWith } from "../support/models";

const root = mkdtempSync(join(tmpdir(), "local-store-links-"));
let counter = 0;
/** Made at run time: no token-shaped string is kept in the repository. */
const fakeRunnerToken = () => `glrt-t1_${randomBytes(15).toString("base64url")}`;
const TOKEN = fakeRunnerToken();

function freshStore(dir = join(root, `store-${(counter += 1)}`)) {
  const model = modelWith("cell-1", (draft) => {
    draft.secrets.local_dir = dir;
  });
  return { store: new LocalSecretStore(model), shard: model.shards[0], dir };
}
const aToken = () => ({ token: TOKEN, runnerId: 7, gitlabUrl: "https://gitlab.example.com", tokenExpiresAt: null, createdAt: "2026-01-01T00:00:00Z" });

test("fails when a symlink is planted at a secret's path, and does not read what it points at", async () => {
  const { store, shard, dir } = freshStore();
  mkdirSync(dir, { mode: 0o700 });
  const target = join(root, `planted-${counter}.json`);
  writeFileSync(target, JSON.stringify({ ...aToken(), token: fakeRunnerToken() }), { mode: 0o600 });
  symlinkSync(target, store.fileOf(shard));

  await expect(store.read(shard)).rejects.toThrow(new SecretStoreError(`${store.fileOf(shard)} is a symbolic link; secret files are never followed through links: remove the link and run onboard again`));
});

test("a write replaces a planted symlink with a private file and leaves the link's target untouched", async () => {
  const { store, shard, dir } = freshStore();
  mkdirSync(dir, { mode: 0o700 });
  const target = join(root, `victim-${counter}.txt`);
  writeFileSync(target, "someone else's file\n");
  symlinkSync(target, store.fileOf(shard));

  await store.write(shard, aToken());

  expect(readFileSync(target, "utf8")).toBe("someone else's file\n");
  expect(await store.read(shard)).toEqual(aToken());
});

test("fails when secrets.local_dir is a symlink, writing nothing through it", async () => {
  const real = join(root, `real-${(counter += 1)}`);
  mkdirSync(real, { mode: 0o700 });
  const link = join(root, `link-${counter}`);
  symlinkSync(real, link);
  const { store, shard } = freshStore(link);

  await expect(store.write(shard, aToken())).rejects.toThrow(`secrets.local_dir ${link} is a symbolic link`);
  await expect(store.checkWritable()).rejects.toThrow(SecretStoreError);
});

test("fails when a secret file is readable by others, naming its mode and what to do", async () => {
  const { store, shard } = freshStore();
  await store.write(shard, aToken());
  chmodSync(store.fileOf(shard), 0o644);

  const error = await store.read(shard).then(
    () => undefined,
    (caught: Error) => caught,
  );
  expect(error?.message).toBe(`${store.fileOf(shard)} is open to others (mode 0644); its token may have leaked: chmod 600 it, and consider onboard --rotate`);
  expect(error?.message).not.toContain(TOKEN);
});

test("fails when the secret's path is a directory", async () => {
  const { store, shard, dir } = freshStore();
  mkdirSync(join(dir, "cell-1--small-amd64.json"), { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  await expect(store.read(shard)).rejects.toThrow("is not a regular file");
});
