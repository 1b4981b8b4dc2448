/**
 * Google Secret Manager store: secret `<prefix>-<cell>-<shard>` in the cell's project,
 * automatic replication, the shard's labels. Each token is a new version whose payload
 * is the raw token (managers read `versions/latest` and use it as is); what we know
 * about it (runner id, GitLab URL, times) sits in the secret's annotations, the runner
 * id also in a label so it can be filtered on.
 *
 * After a new version is added, older enabled versions are disabled: their token no
 * longer works in GitLab anyway, and a disabled version cannot be read by mistake.
 * (They are not destroyed, so the history stays auditable.)
 *
 * Secret ids are "<prefix>-<cell>-<shard>" and stay so (managers and stacks already name
 * them), but "-" also occurs inside cell ids and shard names: cell "aa-bb" with shard "cc"
 * and cell "aa" with shard "bb-cc" map to one id. The secret's labels say whose it is, so
 * the store refuses to read, overwrite or delete a secret labelled for another cell or
 * shard, instead of handing one cell's token to another.
 *
 * The SDK client is created on first use, so a run that never touches the store never
 * looks for credentials; tests inject a fake with the few methods used.
 */
import { cloudShardName, secretLocation, shardLabels } from "../model/names";
import type { RunnerModel, Shard } from "../model/schema";
import { SecretStoreError, type SecretStore, type StoredRunnerToken } from "./store";

interface SecretResource {
  name?: string | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
}
interface SecretVersionResource {
  name?: string | null;
  state?: string | number | null;
}

/** The methods of `SecretManagerServiceClient` this store uses (promise style). */
export interface SecretManagerApi {
  getSecret(request: { name: string }): Promise<[SecretResource, ...unknown[]]>;
  createSecret(request: { parent: string; secretId: string; secret: SecretResource & { replication: { automatic: Record<string, never> } } }): Promise<[SecretResource, ...unknown[]]>;
  updateSecret(request: { secret: SecretResource; updateMask: { paths: string[] } }): Promise<[SecretResource, ...unknown[]]>;
  addSecretVersion(request: { parent: string; payload: { data: Buffer } }): Promise<[SecretVersionResource, ...unknown[]]>;
  accessSecretVersion(request: { name: string }): Promise<[{ name?: string | null; payload?: { data?: Uint8Array | string | null } | null }, ...unknown[]]>;
  listSecretVersions(request: { parent: string; filter?: string }): Promise<[SecretVersionResource[], ...unknown[]]>;
  disableSecretVersion(request: { name: string }): Promise<[SecretVersionResource, ...unknown[]]>;
  deleteSecret(request: { name: string }): Promise<unknown>;
}

/** gRPC status codes the store tells apart. */
const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

/** Annotation keys (letters, digits, '-', '_', '.'; no '/'). */
export const ANNOTATIONS = {
  runnerId: "runner-fleet.gitlab-runner-id",
  gitlabUrl: "runner-fleet.gitlab-url",
  createdAt: "runner-fleet.token-created-at",
  rotatedAt: "runner-fleet.token-rotated-at",
  expiresAt: "runner-fleet.token-expires-at",
} as const;

export class GoogleSecretManagerStore implements SecretStore {
  readonly kind = "google-secret-manager" as const;
  readonly needsCredentials = true;
  private client?: Promise<SecretManagerApi>;

  constructor(
    private readonly model: RunnerModel,
    private readonly project: string,
    clientFactory?: () => SecretManagerApi | Promise<SecretManagerApi>,
  ) {
    this.clientFactory = clientFactory ?? defaultClient;
  }
  private readonly clientFactory: () => SecretManagerApi | Promise<SecretManagerApi>;

  secretName(shard: Shard): string {
    return `projects/${this.project}/secrets/${secretLocation(this.model, shard).googleSecretId}`;
  }

  describe(shard: Shard): string {
    return `Google Secret Manager secret ${this.secretName(shard)}`;
  }

  async read(shard: Shard): Promise<StoredRunnerToken | undefined> {
    const name = this.secretName(shard);
    const api = await this.api();
    const secret = await this.call(`read ${name}`, () => api.getSecret({ name }), [NOT_FOUND]);
    if (!secret) return undefined;
    this.assertOwned(shard, name, secret[0]);
    const version = await this.call(`read ${name}/versions/latest`, () => api.accessSecretVersion({ name: `${name}/versions/latest` }), [NOT_FOUND, FAILED_PRECONDITION]);
    const data = version?.[0].payload?.data;
    if (data === undefined || data === null) return undefined;
    const annotations = secret[0].annotations ?? {};
    const runnerId = Number(annotations[ANNOTATIONS.runnerId] ?? secret[0].labels?.["gitlab-runner-id"]);
    return {
      token: typeof data === "string" ? data : Buffer.from(data).toString("utf8"),
      runnerId,
      gitlabUrl: annotations[ANNOTATIONS.gitlabUrl] ?? "",
      createdAt: annotations[ANNOTATIONS.createdAt] ?? "",
      tokenExpiresAt: annotations[ANNOTATIONS.expiresAt] || null,
      ...(annotations[ANNOTATIONS.rotatedAt] ? { rotatedAt: annotations[ANNOTATIONS.rotatedAt] } : {}),
    };
  }

  async write(shard: Shard, value: StoredRunnerToken): Promise<void> {
    const name = this.secretName(shard);
    const api = await this.api();
    const labels = { ...shardLabels(this.model, shard), "gitlab-runner-id": String(value.runnerId) };
    const annotations: Record<string, string> = {
      [ANNOTATIONS.runnerId]: String(value.runnerId),
      [ANNOTATIONS.gitlabUrl]: value.gitlabUrl,
      [ANNOTATIONS.createdAt]: value.createdAt,
      ...(value.rotatedAt ? { [ANNOTATIONS.rotatedAt]: value.rotatedAt } : {}),
      ...(value.tokenExpiresAt ? { [ANNOTATIONS.expiresAt]: value.tokenExpiresAt } : {}),
    };
    const existing = await this.call(`read ${name}`, () => api.getSecret({ name }), [NOT_FOUND]);
    if (existing) this.assertOwned(shard, name, existing[0]);
    if (existing) {
      await this.call(`update labels of ${name}`, () => api.updateSecret({ secret: { name, labels, annotations }, updateMask: { paths: ["labels", "annotations"] } }));
    } else {
      const secretId = secretLocation(this.model, shard).googleSecretId;
      await this.call(`create ${name}`, () =>
        api.createSecret({ parent: `projects/${this.project}`, secretId, secret: { replication: { automatic: {} }, labels, annotations } }),
      );
    }
    const added = await this.call(`add a version to ${name}`, () => api.addSecretVersion({ parent: name, payload: { data: Buffer.from(value.token, "utf8") } }));
    const newVersion = added?.[0].name;
    const enabled = await this.call(`list versions of ${name}`, () => api.listSecretVersions({ parent: name, filter: "state:ENABLED" }));
    for (const version of enabled?.[0] ?? []) {
      if (version.name && version.name !== newVersion) {
        await this.call(`disable ${version.name}`, () => api.disableSecretVersion({ name: version.name! }), [NOT_FOUND, FAILED_PRECONDITION]);
      }
    }
  }

  async remove(shard: Shard): Promise<boolean> {
    const name = this.secretName(shard);
    const api = await this.api();
    const existing = await this.call(`read ${name}`, () => api.getSecret({ name }), [NOT_FOUND]);
    if (!existing) return false;
    this.assertOwned(shard, name, existing[0]);
    const deleted = await this.call(`delete ${name}`, async () => [await api.deleteSecret({ name })] as const, [NOT_FOUND]);
    return deleted !== undefined;
  }

  /** Refuses a secret whose labels name another cell or shard (a secret id two cells share). */
  private assertOwned(shard: Shard, name: string, secret: SecretResource): void {
    const labels = secret.labels ?? {};
    const cell = labels["gitlab-cell"];
    const owner = labels["runner-shard"];
    if ((cell === undefined || cell === this.model.cell.id) && (owner === undefined || owner === cloudShardName(shard))) return;
    throw new SecretStoreError(
      `Google Secret Manager: ${name} holds the token of cell ${cell ?? "?"}, shard ${owner ?? "?"}, not of cell ${this.model.cell.id}, shard ${shard.name}: ` +
        `their secret ids collide ("-" joins prefix, cell and shard). Give one of the two models another secrets.prefix; nothing was read or changed`,
    );
  }

  private api(): Promise<SecretManagerApi> {
    this.client ??= Promise.resolve().then(this.clientFactory);
    return this.client;
  }

  /** Runs one SDK call; the listed gRPC codes give undefined, anything else a SecretStoreError. */
  private async call<T>(what: string, run: () => Promise<T>, tolerated: number[] = []): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "number" && tolerated.includes(code)) return undefined;
      const detail = (error as { details?: unknown }).details ?? (error as Error).message;
      throw new SecretStoreError(`Google Secret Manager: cannot ${what}: ${String(detail)}`, { cause: error });
    }
  }
}

async function defaultClient(): Promise<SecretManagerApi> {
  const { SecretManagerServiceClient } = await import("@google-cloud/secret-manager");
  // The SDK's overloaded methods (callback and promise styles) include the promise style used here.
  return new SecretManagerServiceClient() as unknown as SecretManagerApi;
}
