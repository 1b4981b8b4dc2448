import { checkRenderedFiles, RenderedFileError, renderedFileProblem } from "../../lib/render/check-rendered";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { exampleModel } from "../support/models";

describe("checking rendered files", () => {
  it("accepts every file the examples render (TOML parser, bash -n)", () => {
    for (const name of ["cell-1", "cell-2"] as const) {
      const files = renderedFilesForCell(exampleModel(name));
      expect(files.map(renderedFileProblem).filter(Boolean)).toEqual([]);
      expect(files.some((file) => file.path.endsWith(".toml")) && files.some((file) => file.path.endsWith(".sh"))).toBe(true);
    }
  });

  it("fails when config.toml does not parse, naming the file, its template and the line", () => {
    const file = { path: "s/manager-0/config.toml", template: "config.toml.hbs", content: 'concurrent = 1\n[[runners]]\nname = "a\n' };
    expect(renderedFileProblem(file)).toMatch(/^rendered\/s\/manager-0\/config\.toml \(from templates\/config\.toml\.hbs\) is not valid TOML: .* at line 3/);
  });

  it("fails when a script does not parse, with bash's own words", () => {
    const file = { path: "s/worker-startup.sh", template: "startup/worker.sh.hbs", content: "#!/bin/bash\ncase x in\n" };
    expect(renderedFileProblem(file)).toMatch(/^rendered\/s\/worker-startup\.sh \(from templates\/startup\/worker\.sh\.hbs\) fails bash -n: .*syntax error/);
  });

  it("lists every broken file of a cell in one OperationalError (exit 1)", () => {
    const broken = [
      { path: "a.toml", template: "t1", content: "= 1" },
      { path: "b.sh", template: "t2", content: "fi" },
      { path: "c.sh", template: "t3", content: "echo ok" },
    ];
    expect(() => checkRenderedFiles("cell-x", broken)).toThrow(RenderedFileError);
    try {
      checkRenderedFiles("cell-x", broken);
    } catch (error) {
      expect((error as RenderedFileError).exitCode).toBe(1);
      expect((error as RenderedFileError).problems.map((problem) => problem.split(" ")[0])).toEqual(["rendered/a.toml", "rendered/b.sh"]);
    }
  });
});

describe("payload skeletons", () => {
  it("keep what bash parses and drop the quoted heredoc bodies, so bash -n says the same of both", () => {
    const { parsePayload } = require("../../lib/render/boot-payload") as typeof import("../../lib/render/boot-payload");
    const payloadSkeleton = (text: string) => parsePayload(text).skeleton;
    const { renderManagerStartupScript } = require("../../lib/render/manager-files") as typeof import("../../lib/render/manager-files");
    const { exampleModel } = require("../support/models") as typeof import("../support/models");
    const model = exampleModel("cell-2");
    const payload = renderManagerStartupScript(model, model.shards[0], 0);

    const skeleton = payloadSkeleton(payload);

    expect(skeleton.length).toBeLessThan(payload.length / 5);
    expect(skeleton).toContain("put_file '/usr/local/sbin/runner-fleet-manager' 0755 <<'RUNNER_FLEET_FILE_END'\nRUNNER_FLEET_FILE_END");
    expect(skeleton).not.toContain("MANAGER_NAME=");
    expect(payloadSkeleton(renderManagerStartupScript(model, model.shards[0], 1))).toBe(skeleton);
    const broken = `${payload}\nif true; then\n`;
    expect(payloadSkeleton(broken)).toMatch(/if true; then\n?$/);
    expect(parsePayload(payload).files.map((file) => file.path)).toContain("/etc/runner-fleet/manager.env");
  });
});

describe("bash -n verdicts", () => {
  it("are asked of bash once per script text in a process, and bash is still asked about a new text", () => {
    const childProcess = require("node:child_process") as typeof import("node:child_process");
    const { checkBashSyntax } = require("../../lib/render/bash-syntax") as typeof import("../../lib/render/bash-syntax");
    const good = `#!/bin/bash\necho "checked once ${process.pid}-${Date.now()}"\n`;
    const broken = `#!/bin/bash\nif true; then # ${process.pid}-${Date.now()}\n`;
    const spawns = jest.spyOn(childProcess, "spawnSync");
    try {
      // GIVEN both texts checked by bash
      const first = checkBashSyntax([good, broken, good]);
      expect(first.map((result) => result.ok)).toEqual([true, false, true]);
      expect(first[1].stderr).toMatch(/syntax error/);
      expect(spawns).toHaveBeenCalledTimes(1);
      // THEN the same texts get bash's verdicts without asking it again
      expect(checkBashSyntax([broken, good])).toEqual([first[1], first[0]]);
      expect(spawns).toHaveBeenCalledTimes(1);
      // AND a new text is asked of bash, alone
      expect(checkBashSyntax([good, `${broken}  :\nfi\n`]).map((result) => result.ok)).toEqual([true, true]);
      expect(spawns).toHaveBeenCalledTimes(2);
      expect(spawns.mock.calls[1][1]).toHaveLength(4); // -c, the loop, $0, one script
    } finally {
      spawns.mockRestore();
    }
  });
});
