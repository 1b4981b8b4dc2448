/**
 * The options parsers import zod, so a command loads its parser only inside its action: building the
 * commands (what --help and --version need) loads none of them. Checked on the compiled CLI, in one
 * Node process, through require's own cache.
 */
import { spawnSync } from "node:child_process";
import { REPO_ROOT } from "../support/cli";

const COMMANDS = [
  ["prepare", "prepareCommand"],
  ["provision", "provisionCommand"],
  ["review", "reviewCommand"],
  ["status", "statusCommand"],
  ["onboard", "onboardCommand"],
  ["simulate", "simulateCommand"],
];

const SCRIPT = `
const commands = ${JSON.stringify(COMMANDS)};
const parsers = () => Object.keys(require.cache).filter((file) => /[\\/]dist[\\/]app[\\/].*-options\\.js$/.test(file)).map((file) => file.replace(/^.*[\\/]dist[\\/]/, ""));
const built = commands.map(([file, factory]) => require("./dist/app/commands/" + file + ".js")[factory]());
const afterBuilding = parsers();
const { runCli } = require("./dist/app/cli/run-command.js");
process.stderr.write = () => true;
runCli(built[0], ["node", "prepare", "--force"]).then((code) => {
  console.log(JSON.stringify({ afterBuilding, code, afterAnAction: parsers().sort() }));
});
`;

test("no options parser is loaded until a command's action runs", () => {
  const result = spawnSync(process.execPath, ["-e", SCRIPT], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout)).toEqual({
    afterBuilding: [],
    code: 2,
    afterAnAction: ["app/cli/parse-options.js", "app/commands/prepare-options.js"],
  });
});
