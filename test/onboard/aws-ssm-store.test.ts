/** AWS SSM Parameter Store against a fake `send` that understands the few commands used. */
import { AwsSsmStore, TAGS, type SsmApi } from "../../lib/secrets/aws-ssm-store";
import { createSecretStore } from "../../lib/secrets/create-store";
import { randomText } from "../support/fake-gitlab";
import { exampleModel } from "../support/models";

interface Parameter {
  Value: string;
  Type: string;
  Tags: Array<{ Key: string; Value: string }>;
}

class FakeSsm implements SsmApi {
  readonly parameters = new Map<string, Parameter>();
  readonly commands: Array<{ name: string; input: Record<string, any> }> = [];

  async send(command: { input: object }): Promise<any> {
    const name = command.constructor.name;
    const input = command.input as Record<string, any>;
    this.commands.push({ name, input });
    switch (name) {
      case "PutParameterCommand": {
        if (input.Tags && input.Overwrite) throw awsError("ValidationException");
        const existing = this.parameters.get(input.Name);
        if (existing && !input.Overwrite) throw awsError("ParameterAlreadyExists");
        this.parameters.set(input.Name, { Value: input.Value, Type: input.Type, Tags: existing?.Tags ?? input.Tags ?? [] });
        return { Version: 1 };
      }
      case "AddTagsToResourceCommand": {
        const parameter = this.parameters.get(input.ResourceId)!;
        for (const tag of input.Tags) parameter.Tags = [...parameter.Tags.filter((old) => old.Key !== tag.Key), tag];
        return {};
      }
      case "GetParameterCommand": {
        const parameter = this.parameters.get(input.Name);
        if (!parameter) throw awsError("ParameterNotFound");
        return { Parameter: { Name: input.Name, Type: parameter.Type, Value: input.WithDecryption ? parameter.Value : "(encrypted)" } };
      }
      case "ListTagsForResourceCommand":
        return { TagList: this.parameters.get(input.ResourceId)?.Tags ?? [] };
      case "DeleteParameterCommand":
        if (!this.parameters.delete(input.Name)) throw awsError("ParameterNotFound");
        return {};
      default:
        throw new Error(`unexpected command ${name}`);
    }
  }
}

function awsError(name: string) {
  return Object.assign(new Error(`${name} (simulated)`), { name });
}

const model = exampleModel("cell-2");
const shard = model.shards[0];
const parameterName = "/gitlab-runner/cell-2/spot-amd64/token";

function aToken(runnerId = 21) {
  return { token: `glrt-t1_${randomText(20)}`, runnerId, gitlabUrl: model.gitlab.url, tokenExpiresAt: "2026-01-01T00:00:00.000Z", createdAt: "2025-06-01T10:00:00.000Z" };
}

test("the factory picks it for the model, in the model's region, and creates no client yet", () => {
  const regions: string[] = [];
  const store = createSecretStore(model, { ssmClient: (region) => (regions.push(region), new FakeSsm()) });

  expect(store).toBeInstanceOf(AwsSsmStore);
  expect(store.describe(shard)).toBe(`AWS SSM parameter ${parameterName} (eu-west-1)`);
  expect(regions).toEqual([]);
});

test("creates a SecureString holding the raw token, tagged with the shard and the token's metadata", async () => {
  const fake = new FakeSsm();
  const store = new AwsSsmStore(model, "eu-west-1", () => fake);
  const value = aToken();

  await store.write(shard, value);

  const parameter = fake.parameters.get(parameterName)!;
  expect(parameter).toMatchObject({ Value: value.token, Type: "SecureString" });
  expect(Object.fromEntries(parameter.Tags.map((tag) => [tag.Key, tag.Value]))).toMatchObject({
    "gitlab-cell": "cell-2",
    "runner-shard": "spot-amd64",
    [TAGS.runnerId]: "21",
    [TAGS.gitlabUrl]: model.gitlab.url,
  });
  expect(await store.read(shard)).toEqual(value);
});

test("a rotation overwrites the value (without Tags, which SSM refuses with Overwrite) and re-tags", async () => {
  const fake = new FakeSsm();
  const store = new AwsSsmStore(model, "eu-west-1", () => fake);
  await store.write(shard, aToken());
  const rotated = { ...aToken(22), rotatedAt: "2025-06-02T10:00:00.000Z" };

  await store.write(shard, rotated);

  expect(fake.commands.filter((command) => command.name === "PutParameterCommand" && command.input.Overwrite)).toHaveLength(1);
  expect(await store.read(shard)).toEqual(rotated);
});

test("reads nothing when the parameter does not exist, and removes it once", async () => {
  const fake = new FakeSsm();
  const store = new AwsSsmStore(model, "eu-west-1", () => fake);

  expect(await store.read(shard)).toBeUndefined();
  await store.write(shard, aToken());
  expect(await store.remove(shard)).toBe(true);
  expect(await store.remove(shard)).toBe(false);
});

test("fails with a store error (exit 1) naming the parameter, without the token", async () => {
  const fake = new FakeSsm();
  fake.send = async () => {
    throw awsError("AccessDeniedException");
  };
  const store = new AwsSsmStore(model, "eu-west-1", () => fake);
  const value = aToken();

  const error = (await store.write(shard, value).catch((caught: unknown) => caught)) as Error;

  expect(error).toMatchObject({ exitCode: 1, message: expect.stringContaining(`cannot create ${parameterName}: AccessDeniedException`) });
  expect(error.message).not.toContain(value.token);
});

test("cells whose ids and shard names join alike keep separate parameters (cell aa-bb shard cc vs. cell aa shard bb-cc)", async () => {
  const ssm = new FakeSsm();
  const named = (cell: string, shardName: string) => {
    const draft = structuredClone(model);
    draft.cell.id = cell;
    draft.shards = [{ ...structuredClone(shard), name: shardName }];
    return new AwsSsmStore(draft, "eu-west-1", () => ssm);
  };
  const first = named("aa-bb", "cc");
  const second = named("aa", "bb-cc");
  const [firstValue, secondValue] = [
    { token: `glrt-t1_${randomText(20)}`, runnerId: 1, gitlabUrl: model.gitlab.url, tokenExpiresAt: null, createdAt: "2025-06-01T10:00:00.000Z" },
    { token: `glrt-t1_${randomText(20)}`, runnerId: 2, gitlabUrl: model.gitlab.url, tokenExpiresAt: null, createdAt: "2025-06-01T10:00:00.000Z" },
  ];

  await first.write({ ...shard, name: "cc" }, firstValue);
  await second.write({ ...shard, name: "bb-cc" }, secondValue);

  expect([...ssm.parameters.keys()].sort()).toEqual(["/gitlab-runner/aa-bb/cc/token", "/gitlab-runner/aa/bb-cc/token"]);
  expect((await first.read({ ...shard, name: "cc" }))?.token).toBe(firstValue.token);
  expect((await second.read({ ...shard, name: "bb-cc" }))?.token).toBe(secondValue.token);
});
