/**
 * The one escaping function, judged by the real terraform: text escaped by the stack's
 * aspect reads back unchanged, and references cdktf builds next to it still resolve.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerraformLocal, TerraformOutput, TerraformStack, Testing } from "cdktf";
import { escapeLiteralTextIn } from "../../stacks/literal-text";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { isolatedEnv, terraform } from "../support/real-engine/terraform-cli";

const TEXTS = {
  bashExpansions: 'ROOT=/opt; echo "${ROOT}/bin ${RUNNER_FLEET_ROOT:-} ${BASH_REMATCH[1]} ${x//a/b}"',
  alreadyEscaped: "$${not_a_reference} and %%{ not_a_directive }",
  directive: "%{ if true }yes%{ endif }",
  dollarAtEnd: "price in $",
  quotesAndLines: 'line "one"\n\tline \\two\\\n',
  function: '${file("/etc/passwd")}',
} as const;

describeWithRealEngine("literal text in Terraform JSON, read back by the real terraform", { aws: false }, () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "runner-fleet-literal-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every literal back as written, next to references that resolve", async () => {
    const stack = new TerraformStack(Testing.app(), "literals");
    escapeLiteralTextIn(stack);
    const sourceValue = new TerraformLocal(stack, "source", "referenced").asString;
    for (const [name, text] of Object.entries(TEXTS)) {
      new TerraformOutput(stack, name, { value: text });
      // Literal text around a reference: the literal stays literal, the reference resolves.
      new TerraformOutput(stack, `${name}_around_reference`, { value: `${text}${sourceValue}${text}` });
    }
    writeFileSync(join(dir, "main.tf.json"), Testing.synth(stack));

    const env = isolatedEnv();
    await terraform(["init", "-input=false", "-no-color"], dir, env);
    await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], dir, env);
    const outputs = JSON.parse((await terraform(["output", "-json"], dir, env)).stdout) as Record<string, { value: string }>;

    for (const [name, text] of Object.entries(TEXTS)) {
      expect(outputs[name].value).toBe(text);
      expect(outputs[`${name}_around_reference`].value).toBe(`${text}referenced${text}`);
    }
  }, 60_000);
});
