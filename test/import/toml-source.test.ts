/** Where keys stand in a config.toml: table headers, arrays of tables counted per parent, values that span lines. */
import { parseTomlSource } from "../../app/import/toml-source";

const text = [
  "concurrent = 4 # jobs",
  'pre = """',
  "fake = 1",
  '"""',
  "[[runners]]",
  '  name = "a"',
  "  [runners.machine]",
  "    MachineOptions = [",
  '      "one=1",  # first',
  "      'two=2',",
  "    ]",
  "    [[runners.machine.autoscaling]]",
  '      Periods = ["* * * * * * *"]',
  "[[runners]]",
  '  "quoted key" = true',
  "  docker.image = 'x'",
  "  [[runners.machine.autoscaling]]",
  "    IdleCount = 1",
].join("\n");

describe("parseTomlSource positions", () => {
  const source = parseTomlSource(text, "config.toml");

  it.each([
    [["concurrent"], 1, 1],
    [["pre"], 2, 1],
    [["runners", 0], 5, 1],
    [["runners", 0, "name"], 6, 3],
    [["runners", 0, "machine", "MachineOptions"], 8, 5],
    [["runners", 0, "machine", "MachineOptions", 0], 9, 7],
    [["runners", 0, "machine", "MachineOptions", 1], 10, 7],
    [["runners", 0, "machine", "autoscaling", 0, "Periods", 0], 13, 18],
    [["runners", 1, "quoted key"], 15, 3],
    [["runners", 1, "docker", "image"], 16, 3],
    // A second runner's autoscaling list starts again at 0.
    [["runners", 1, "machine", "autoscaling", 0, "IdleCount"], 18, 5],
  ] as const)("finds %j at %i:%i", (path, line, column) => {
    expect(source.locate(path)).toEqual({ line, column });
  });

  it("does not take a line inside a multi-line string for a key", () => {
    expect(source.data.fake).toBeUndefined();
    expect(source.locate(["fake"])).toEqual({ line: 1, column: 1 });
  });

  it("falls back to the nearest enclosing key or table", () => {
    expect(source.locate(["runners", 0, "machine", "IdleTime"])).toEqual({ line: 7, column: 3 });
  });

  it("fails with the file's line:col on a syntax error, without echoing the file", () => {
    const parse = () => parseTomlSource('token = "glrt-secret-value"\nx = = 1\n', "config.toml");
    expect(parse).toThrow(/^config\.toml:2:\d+: not valid TOML: [^\n]*; expected a gitlab-runner config\.toml$/);
    expect(parse).not.toThrow(/secret-value/);
  });
});
