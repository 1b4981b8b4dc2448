import { spawnSync } from "node:child_process";
import { parse } from "smol-toml";
import { handlebars, template } from "../../lib/templates/template-engine";
import { shellQuote } from "../../lib/text/shell-quote";
import { tomlFloat, tomlInteger, tomlString, tomlValue } from "../../lib/text/toml-values";
import { configTomlContext } from "../../lib/render/config-toml";
import { exampleModel } from "../support/models";

describe("template (strict handlebars)", () => {
  it("fails when a variable the template uses is missing", () => {
    const model = exampleModel("cell-1");
    const { concurrent: _dropped, ...withoutConcurrent } = configTomlContext(model, model.shards[0], [0]);

    expect(() => template<object>("config.toml.hbs")(withoutConcurrent)).toThrow(/"concurrent" not defined/);
  });

  it("fails when a value passed to a quoting helper is missing (strict mode does not check helper arguments)", () => {
    const model = exampleModel("cell-1");
    const { listenAddress: _dropped, ...withoutListenAddress } = configTomlContext(model, model.shards[0], [0]);

    expect(() => template<object>("config.toml.hbs")(withoutListenAddress)).toThrow(/\{\{toml\}\} got a value that is not defined at template line \d+/);
  });

  it("fails when a nested value is missing inside a list", () => {
    const model = exampleModel("cell-1");
    const context = configTomlContext(model, model.shards[0], [0]);
    const runner = { ...context.runners[0], docker: { ...context.runners[0].docker } } as Record<string, unknown>;
    delete (runner.docker as Record<string, unknown>).image;

    expect(() => template<object>("config.toml.hbs")({ ...context, runners: [runner] })).toThrow(/\{\{toml\}\} got a value that is not defined/);
  });

  it("fails when a script template misses a value for the sh helper", () => {
    const render = handlebars.compile("readonly X={{sh missing}}", { strict: true, noEscape: true });

    expect(() => render({})).toThrow(/\{\{sh\}\} got a value that is not defined/);
  });

  it("fails when a template file does not exist", () => {
    expect(() => template("no-such-template.hbs")).toThrow(/ENOENT/);
  });

  it("renders with the registered helpers", () => {
    const render = handlebars.compile("{{toml a}} {{tomlFloat b}} {{sh c}} {{#if (isSet d)}}set{{/if}}", { strict: true, noEscape: true });

    expect(render({ a: 'x"y', b: 2, c: "it's", d: 0 })).toBe(`"x\\"y" 2.0 'it'\\''s' set`);
  });
});

describe("TOML literals", () => {
  it("escapes every control character, quote and backslash so strings read back unchanged", () => {
    const every = Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code)).join("") + "é中🚀";

    const document = parse(`value = ${tomlString(every)}`) as { value: string };

    expect(document.value).toBe(every);
  });

  it("writes arrays, booleans and integers", () => {
    const document = parse(`a = ${tomlValue(["x", "y"])}\nb = ${tomlValue(true)}\nc = ${tomlValue(42)}`);

    expect(document).toEqual({ a: ["x", "y"], b: true, c: 42 });
  });

  it("writes floats that stay floats", () => {
    expect(tomlFloat(0)).toBe("0.0");
    expect(tomlFloat(0.25)).toBe("0.25");
    expect(tomlFloat(3)).toBe("3.0");
  });

  it("fails when a value cannot be written to TOML", () => {
    expect(() => tomlInteger(1.5)).toThrow(/integer/);
    expect(() => tomlFloat(Number.NaN)).toThrow(/finite/);
    expect(() => tomlString("\ud800")).toThrow(/surrogate/);
  });
});

describe("shellQuote", () => {
  it("makes one bash word that expands to exactly the text", () => {
    const nasty = `it's $(echo pwned) \`x\` $HOME "q" \\ \n*`;

    const echoed = spawnSync("bash", ["-c", `printf '%s' ${shellQuote(nasty)}`], { encoding: "utf8" });

    expect(echoed.stdout).toBe(nasty);
  });

  it("fails when the text holds a NUL byte", () => {
    expect(() => shellQuote("a\0b")).toThrow(/NUL/);
  });
});
