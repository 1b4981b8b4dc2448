import { App, Fn, Lazy, TerraformLocal, TerraformStack, TerraformVariable, Token } from "cdktf";
import { resolve as cdktfResolve } from "cdktf/lib/_tokens";
import * as privateResolve from "cdktf/lib/tokens/private/resolve";
import { resolveSkippingPlainValues } from "../../stacks/plain-value-resolve";

/** What cdktf's resolve returns for `value`, or the error it throws (class and message). */
function outcome(resolveValue: () => unknown): { value?: string; error?: { name: string; message: string } } {
  try {
    // JSON text with undefined kept visible: two results are the same when their texts are.
    return { value: JSON.stringify(resolveValue(), (_key, inner: unknown) => (inner === undefined ? "<undefined>" : inner)) };
  } catch (error) {
    const thrown = error as Error;
    return { error: { name: thrown.constructor.name, message: thrown.message } };
  }
}

describe("resolveSkippingPlainValues", () => {
  let stack: TerraformStack;
  let variable: TerraformVariable;
  let local: TerraformLocal;
  beforeEach(() => {
    stack = new TerraformStack(new App({ stackTraces: false }), "resolve");
    variable = new TerraformVariable(stack, "name", { type: "string" });
    local = new TerraformLocal(stack, "sizes", [1, 2]);
  });

  /** Each value (built once: each new token has a new number) resolves as cdktf resolves it: the same JSON, or the same error. */
  function expectCdktfsOutcome(values: Record<string, () => unknown>): void {
    for (const [name, build] of Object.entries(values)) {
      const value = build();
      const cdktf = outcome(() => cdktfResolve(stack, value));
      expect([name, outcome(() => resolveSkippingPlainValues(stack, value))]).toEqual([name, cdktf]);
    }
  }

  it("returns what cdktf returns for plain values, dropping undefined from objects and arrays and keeping empty ones", () => {
    expectCdktfsOutcome({
      nested: () => ({ a: "text", b: 1, c: -2.5, d: true, e: null, f: undefined, g: [1, undefined, "x", [], {}], h: { i: { j: [[["deep"]]] } } }),
      emptyText: () => ({ "": "" }),
      date: () => ({ at: new Date(0) }),
      literalTemplateSyntax: () => ({ script: "echo $${HOME} ${HOME} %%{if} %{if} }" }),
      numberShapedText: () => ({ hash: "3e4f9e1-2e+5 1.5E3 .e.", "1e5": "key shaped like a number", large: 1e300, NaN: Number.NaN }),
      topLevelString: () => "just text",
      topLevelUndefined: () => undefined,
    });
  });

  it("resolves tokens in values, keys, nested lists, lazy values and Fn calls as cdktf does", () => {
    expectCdktfsOutcome({
      reference: () => ({ name: variable.stringValue, inText: `name-${variable.stringValue}-end`, dollarBefore: `$${variable.stringValue}` }),
      tokenKey: () => ({ [variable.stringValue]: "value", plain: "kept" }),
      lazyKey: () => ({ [Lazy.stringValue({ produce: () => "made" })]: 1 }),
      nestedLists: () => ({ lists: [[variable.stringValue, "a"], [Token.asList(local.expression)], Token.asList(local.expression)] }),
      lazyValues: () => ({ any: Lazy.anyValue({ produce: () => ({ inner: [variable.stringValue, 3], plain: "x" }) }), text: Lazy.stringValue({ produce: () => "lazy" }) }),
      lazyNumber: () => ({ count: Lazy.numberValue({ produce: () => 7 }), inList: [Lazy.numberValue({ produce: () => 8 }), 9] }),
      encodedNumbers: () => ({ size: Token.asNumber(local.expression), inText: `size ${Token.asNumber(local.expression)} of 2e3`, list: Token.asNumberList(local.expression) }),
      functionCalls: () => ({ joined: Fn.join(",", [variable.stringValue, "b"]), lookedUp: Fn.lookup({ a: 1 }, variable.stringValue, 0), length: Fn.lengthOf(Token.asList(local.expression)) }),
      mapTokens: () => ({ strings: Token.asStringMap(local.expression), any: Token.asAnyMap(Lazy.anyValue({ produce: () => ({ k: "v" }) })) }),
      nullValue: () => ({ nothing: Token.nullValue() }),
    });
  });

  it("throws cdktf's error, of its class, for what cdktf refuses", () => {
    let deep: Record<string, unknown> = { bottom: "x" };
    for (let depth = 0; depth < 205; depth++) deep = { down: deep };
    expectCdktfsOutcome({
      mapTokenValueAsText: () => ({ a: { b: Token.STRING_MAP_TOKEN_VALUE } }),
      anyMapTokenValueAsText: () => ({ a: [Token.ANY_MAP_TOKEN_VALUE] }),
      mapTokenValueAsNumber: () => ({ a: [Token.NUMBER_MAP_TOKEN_VALUE] }),
      unknownEncodedNumber: () => ({ a: { b: -1.8881545897087968e289 } }),
      unknownEncodedNumberInText: () => ({ a: "x -1.8881545897087968e+289 y" }),
      listTokenInText: () => ({ a: `in ${Token.asList(local.expression)[0]} text` }),
      listTokenBesideElements: () => ({ a: [...Token.asList(local.expression), "more"] }),
      aFunction: () => ({ a: { b: () => "f" } }),
      aConstruct: () => ({ a: { b: variable } }),
      tooDeep: () => deep,
    });
  });

  it("leaves values without tokens to itself, and hands each token to cdktf at its key path", () => {
    const spy = jest.spyOn(privateResolve, "resolve");
    try {
      // GIVEN a large plain value with one token inside
      const script = `#!/bin/bash\n${"echo 'a line of a startup script' 3e4f\n".repeat(500)}`;
      resolveSkippingPlainValues(stack, { resource: { template: { metadata: { script }, tags: ["a", "b"], size: 3, on: true } } });
      expect(spy).not.toHaveBeenCalled();

      const name = variable.stringValue;
      const resolved = resolveSkippingPlainValues(stack, { resource: { template: { metadata: { script }, names: ["a", name] } } });
      // THEN cdktf resolved the token (and what it resolves to, in turn), starting at its path
      expect(spy.mock.calls[0]).toEqual([name, expect.objectContaining({ prefix: ["resource", "template", "names", "1"], preparing: false })]);
      expect(resolved).toEqual({ resource: { template: { metadata: { script }, names: ["a", "${var.name}"] } } });
    } finally {
      spy.mockRestore();
    }
  });
});
