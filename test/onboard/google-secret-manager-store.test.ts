/** Google Secret Manager store against an in-memory fake of the few SDK methods used. */
import { ANNOTATIONS, GoogleSecretManagerStore, type SecretManagerApi } from "../../lib/secrets/google-secret-manager-store";
import { createSecretStore } from "../../lib/secrets/create-store";
import { randomText } from "../support/fake-gitlab";
import { exampleModel } from "../support/models";

interface FakeSecret {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  replication: unknown;
  versions: Array<{ name: string; state: "ENABLED" | "DISABLED"; data: Buffer }>;
}

class FakeSecretManager implements SecretManagerApi {
  readonly secrets = new Map<string, FakeSecret>();
  readonly calls: string[] = [];

  async getSecret({ name }: { name: string }) {
    this.calls.push("getSecret");
    const secret = this.secrets.get(name);
    if (!secret) throw notFound();
    return [{ name, labels: secret.labels, annotations: secret.annotations }] as [object];
  }
  async createSecret({ parent, secretId, secret }: Parameters<SecretManagerApi["createSecret"]>[0]) {
    this.calls.push("createSecret");
    const name = `${parent}/secrets/${secretId}`;
    this.secrets.set(name, { labels: secret.labels ?? {}, annotations: secret.annotations ?? {}, replication: secret.replication, versions: [] });
    return [{ name }] as [object];
  }
  async updateSecret({ secret, updateMask }: Parameters<SecretManagerApi["updateSecret"]>[0]) {
    this.calls.push("updateSecret");
    const existing = this.secrets.get(secret.name!)!;
    if (updateMask.paths.includes("labels")) existing.labels = secret.labels ?? {};
    if (updateMask.paths.includes("annotations")) existing.annotations = secret.annotations ?? {};
    return [secret] as [object];
  }
  async addSecretVersion({ parent, payload }: Parameters<SecretManagerApi["addSecretVersion"]>[0]) {
    this.calls.push("addSecretVersion");
    const secret = this.secrets.get(parent);
    if (!secret) throw notFound();
    const version = { name: `${parent}/versions/${secret.versions.length + 1}`, state: "ENABLED" as const, data: payload.data };
    secret.versions.push(version);
    return [{ name: version.name }] as [object];
  }
  async accessSecretVersion({ name }: { name: string }) {
    this.calls.push("accessSecretVersion");
    const secret = this.secrets.get(name.replace(/\/versions\/latest$/, ""));
    const latest = secret?.versions.filter((version) => version.state === "ENABLED").at(-1);
    if (!latest) throw notFound();
    return [{ name: latest.name, payload: { data: new Uint8Array(latest.data) } }] as [object];
  }
  async listSecretVersions({ parent, filter }: { parent: string; filter?: string }) {
    this.calls.push("listSecretVersions");
    const versions = this.secrets.get(parent)?.versions ?? [];
    return [versions.filter((version) => filter !== "state:ENABLED" || version.state === "ENABLED").map(({ name, state }) => ({ name, state }))] as [object[]];
  }
  async disableSecretVersion({ name }: { name: string }) {
    this.calls.push("disableSecretVersion");
    for (const secret of this.secrets.values()) for (const version of secret.versions) if (version.name === name) version.state = "DISABLED";
    return [{ name }] as [object];
  }
  async deleteSecret({ name }: { name: string }) {
    this.calls.push("deleteSecret");
    if (!this.secrets.delete(name)) throw notFound();
    return [{}];
  }
}

function notFound() {
  return Object.assign(new Error("5 NOT_FOUND: Secret not found"), { code: 5, details: "Secret not found" });
}

const model = exampleModel("cell-1");
const shard = model.shards[0];
const project = model.cloud.provider === "google" ? model.cloud.project : "";
const secretName = `projects/${project}/secrets/gitlab-runner-cell-1-small-amd64`;

function aToken(runnerId = 11) {
  return { token: `glrt-t1_${randomText(20)}`, runnerId, gitlabUrl: model.gitlab.url, tokenExpiresAt: null, createdAt: "2025-06-01T10:00:00.000Z" };
}

test("the factory picks it for the model, and creating it touches no client", () => {
  let created = 0;
  const store = createSecretStore(model, { googleClient: () => ((created += 1), new FakeSecretManager()) });

  expect(store).toBeInstanceOf(GoogleSecretManagerStore);
  expect(store.describe(shard)).toContain(secretName);
  expect(created).toBe(0);
});

test("creates the secret with automatic replication and labels, the raw token as a version, metadata as annotations", async () => {
  const fake = new FakeSecretManager();
  const store = new GoogleSecretManagerStore(model, project, () => fake);
  const value = aToken();

  await store.write(shard, value);

  const secret = fake.secrets.get(secretName)!;
  expect(secret.replication).toEqual({ automatic: {} });
  expect(secret.labels).toMatchObject({ "gitlab-cell": "cell-1", "runner-shard": "small-amd64", "gitlab-runner-id": "11", team: "runner-platform" });
  expect(secret.annotations).toMatchObject({ [ANNOTATIONS.runnerId]: "11", [ANNOTATIONS.gitlabUrl]: model.gitlab.url });
  expect(secret.versions.map((version) => version.data.toString("utf8"))).toEqual([value.token]);
  expect(await store.read(shard)).toEqual(value);
});

test("a rotation adds a version, disables the older one and records the rotation", async () => {
  const fake = new FakeSecretManager();
  const store = new GoogleSecretManagerStore(model, project, () => fake);
  await store.write(shard, aToken());
  const rotated = { ...aToken(), rotatedAt: "2025-06-02T10:00:00.000Z" };

  await store.write(shard, rotated);

  const versions = fake.secrets.get(secretName)!.versions;
  expect(versions.map((version) => version.state)).toEqual(["DISABLED", "ENABLED"]);
  expect(fake.calls.filter((call) => call === "createSecret")).toHaveLength(1);
  expect(await store.read(shard)).toEqual(rotated);
});

test("reads nothing when the secret does not exist, and removes it once", async () => {
  const fake = new FakeSecretManager();
  const store = new GoogleSecretManagerStore(model, project, () => fake);

  expect(await store.read(shard)).toBeUndefined();
  await store.write(shard, aToken());
  expect(await store.remove(shard)).toBe(true);
  expect(await store.remove(shard)).toBe(false);
});

test("fails with a store error (exit 1) naming the secret when the API refuses", async () => {
  const fake = new FakeSecretManager();
  fake.getSecret = async () => {
    throw Object.assign(new Error("7 PERMISSION_DENIED"), { code: 7, details: "Permission denied on secret" });
  };
  const store = new GoogleSecretManagerStore(model, project, () => fake);

  await expect(store.write(shard, aToken())).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining(`cannot read ${secretName}: Permission denied`) });
});

test("fails when the secret id is another cell's (cell aa-bb shard cc vs. cell aa shard bb-cc), reading and changing nothing", async () => {
  const fake = new FakeSecretManager();
  const collide = (cell: string, shardName: string) => {
    const draft = structuredClone(model);
    draft.cell.id = cell;
    draft.shards = [{ ...structuredClone(shard), name: shardName }];
    return draft;
  };
  const first = collide("aa-bb", "cc");
  const second = collide("aa", "bb-cc");
  const firstStore = new GoogleSecretManagerStore(first, project, () => fake);
  const secondStore = new GoogleSecretManagerStore(second, project, () => fake);
  expect(firstStore.secretName(first.shards[0])).toBe(secondStore.secretName(second.shards[0]));
  const firstToken = aToken(21);
  await firstStore.write(first.shards[0], firstToken);

  const refused = { exitCode: 1, message: expect.stringContaining("holds the token of cell aa-bb, shard cc, not of cell aa, shard bb-cc") };
  await expect(secondStore.read(second.shards[0])).rejects.toMatchObject(refused);
  await expect(secondStore.write(second.shards[0], aToken(22))).rejects.toMatchObject(refused);
  await expect(secondStore.remove(second.shards[0])).rejects.toMatchObject(refused);

  expect(await firstStore.read(first.shards[0])).toEqual(firstToken);
});
