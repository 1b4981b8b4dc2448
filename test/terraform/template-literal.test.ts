import { Testing, TerraformLocal, TerraformOutput, TerraformStack } from "cdktf";
import { containsTokenMarker } from "../../lib/model/token-markers";
import { escapeLiteralParts, escapeLiteralText, escapeTemplateLiteral } from "../../lib/terraform/template-literal";
import { escapeLiteralTextIn } from "../../stacks/literal-text";

describe("escaping literal text for Terraform JSON", () => {
  it("escapes interpolations and directives with the template syntax's own escapes", () => {
    expect(escapeTemplateLiteral('echo "${ROOT}" %{if} $${x} 100% {}')).toBe('echo "$${ROOT}" %%{if} $$${x} 100% {}');
  });

  it("leaves cdktf token markers alone, so references still resolve", () => {
    expect(escapeLiteralParts("${ROOT}-${TfToken[TOKEN.12]}-%{x}")).toBe("$${ROOT}-${TfToken[TOKEN.12]}-%%{x}");
  });

  it("keeps a dollar sign right before a reference a dollar sign", () => {
    expect(escapeLiteralParts("cost $${TfToken[TOKEN.3]}")).toBe('cost ${"$"}${TfToken[TOKEN.3]}');
  });

  it("escapes map keys and values but not cdktf's // metadata", () => {
    const escaped = escapeLiteralText({ "//": { path: "a/${b}" }, labels: { "k${x}": "v%{y}" }, list: ["${z}", 3, true, null] });
    expect(escaped).toEqual({ "//": { path: "a/${b}" }, labels: { "k$${x}": "v%%{y}" }, list: ["$${z}", 3, true, null] });
  });

  it("recognizes string, list and map token markers", () => {
    expect(["${TfToken[TOKEN.1]}", "#{TfToken[TOKEN.1]}", "&{TfToken[TOKEN.1]}"].map(containsTokenMarker)).toEqual([true, true, true]);
    expect(containsTokenMarker("${TfTokens}")).toBe(false);
  });

  it("applies to every element of a stack through the aspect", () => {
    const stack = new TerraformStack(Testing.app(), "s");
    escapeLiteralTextIn(stack);
    const local = new TerraformLocal(stack, "name", "${HOME}");
    new TerraformOutput(stack, "out", { value: `${local.asString}/\${PATH}` });
    const json = JSON.parse(Testing.synth(stack));
    expect(json.locals.name).toBe("$${HOME}");
    expect(json.output.out.value).toBe("${local.name}/$${PATH}");
  });
});
