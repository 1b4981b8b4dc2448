/**
 * AWS SSM Parameter Store: SecureString `/<prefix>/<cell>/<shard>/token` whose value
 * is the raw token (managers call GetParameter --with-decryption and use it as is).
 * What we know about the token (runner id, GitLab URL, times) is kept in the
 * parameter's tags next to the shard's tags.
 *
 * PutParameter refuses Tags together with Overwrite, so a first write creates the
 * parameter with its tags, and later writes overwrite the value and re-tag it.
 *
 * The SDK is loaded and its client created on first use, so a run that never touches
 * the store never looks for credentials; tests inject a fake `send`.
 */
import { secretLocation, shardLabels } from "../model/names";
import type { RunnerModel, Shard } from "../model/schema";
import { SecretStoreError, type SecretStore, type StoredRunnerToken } from "./store";

/** The one method of `SSMClient` this store uses: it receives the SDK's command objects. */
export interface SsmApi {
  send(command: { readonly input: object }): Promise<any>;
}

export const TAGS = {
  runnerId: "runner-fleet:gitlab-runner-id",
  gitlabUrl: "runner-fleet:gitlab-url",
  createdAt: "runner-fleet:token-created-at",
  rotatedAt: "runner-fleet:token-rotated-at",
  expiresAt: "runner-fleet:token-expires-at",
} as const;

type SsmModule = typeof import("@aws-sdk/client-ssm");

export class AwsSsmStore implements SecretStore {
  readonly kind = "aws-ssm" as const;
  readonly needsCredentials = true;
  private loaded?: Promise<{ sdk: SsmModule; client: SsmApi }>;

  constructor(
    private readonly model: RunnerModel,
    private readonly region: string,
    private readonly clientFactory?: (region: string) => SsmApi,
  ) {}

  parameterName(shard: Shard): string {
    return secretLocation(this.model, shard).awsParameterName;
  }

  describe(shard: Shard): string {
    return `AWS SSM parameter ${this.parameterName(shard)} (${this.region})`;
  }

  async read(shard: Shard): Promise<StoredRunnerToken | undefined> {
    const name = this.parameterName(shard);
    const { sdk, client } = await this.load();
    const got = await this.call(`read ${name}`, () => client.send(new sdk.GetParameterCommand({ Name: name, WithDecryption: true })), ["ParameterNotFound"]);
    const token = got?.Parameter?.Value as string | undefined;
    if (!token) return undefined;
    const listed = await this.call(`read the tags of ${name}`, () =>
      client.send(new sdk.ListTagsForResourceCommand({ ResourceType: "Parameter", ResourceId: name })),
    );
    const tags = Object.fromEntries(((listed?.TagList ?? []) as { Key?: string; Value?: string }[]).map((tag) => [tag.Key, tag.Value]));
    return {
      token,
      runnerId: Number(tags[TAGS.runnerId]),
      gitlabUrl: tags[TAGS.gitlabUrl] ?? "",
      createdAt: tags[TAGS.createdAt] ?? "",
      tokenExpiresAt: tags[TAGS.expiresAt] || null,
      ...(tags[TAGS.rotatedAt] ? { rotatedAt: tags[TAGS.rotatedAt] } : {}),
    };
  }

  async write(shard: Shard, value: StoredRunnerToken): Promise<void> {
    const name = this.parameterName(shard);
    const { sdk, client } = await this.load();
    const tags = Object.entries({
      ...shardLabels(this.model, shard),
      [TAGS.runnerId]: String(value.runnerId),
      [TAGS.gitlabUrl]: value.gitlabUrl,
      [TAGS.createdAt]: value.createdAt,
      ...(value.rotatedAt ? { [TAGS.rotatedAt]: value.rotatedAt } : {}),
      ...(value.tokenExpiresAt ? { [TAGS.expiresAt]: value.tokenExpiresAt } : {}),
    }).map(([Key, Value]) => ({ Key, Value }));
    const parameter = {
      Name: name,
      Value: value.token,
      Type: "SecureString" as const,
      Description: `GitLab runner token of cell ${this.model.cell.id}, shard ${shard.name} (runner ${value.runnerId})`,
    };
    const created = await this.call(`create ${name}`, () => client.send(new sdk.PutParameterCommand({ ...parameter, Tags: tags })), ["ParameterAlreadyExists"]);
    if (created) return;
    await this.call(`overwrite ${name}`, () => client.send(new sdk.PutParameterCommand({ ...parameter, Overwrite: true })));
    await this.call(`tag ${name}`, () => client.send(new sdk.AddTagsToResourceCommand({ ResourceType: "Parameter", ResourceId: name, Tags: tags })));
  }

  async remove(shard: Shard): Promise<boolean> {
    const name = this.parameterName(shard);
    const { sdk, client } = await this.load();
    const deleted = await this.call(`delete ${name}`, async () => (await client.send(new sdk.DeleteParameterCommand({ Name: name }))) ?? {}, ["ParameterNotFound"]);
    return deleted !== undefined;
  }

  private load(): Promise<{ sdk: SsmModule; client: SsmApi }> {
    this.loaded ??= import("@aws-sdk/client-ssm").then((sdk) => ({
      sdk,
      client: this.clientFactory ? this.clientFactory(this.region) : (new sdk.SSMClient({ region: this.region }) as SsmApi),
    }));
    return this.loaded;
  }

  /** Runs one SDK call; the listed error names give undefined, anything else a SecretStoreError. */
  private async call<T>(what: string, run: () => Promise<T>, tolerated: string[] = []): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      if (typeof name === "string" && tolerated.includes(name)) return undefined;
      throw new SecretStoreError(`AWS SSM: cannot ${what}: ${String(name ?? "error")}: ${(error as Error).message}`, { cause: error });
    }
  }
}
