import { OperationalError } from "../../lib/process/errors";
import { detectEngine } from "../../lib/terraform/detect-engine";
import { pathWithFakeEngines } from "../support/fake-terraform-workspace";

/** An environment whose PATH holds only node and the fake under the given names. */
const envWith = (names: string[], extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: pathWithFakeEngines(names), ...extra });

describe("detectEngine", () => {
  it("prefers terraform when both engines are installed", () => {
    expect(detectEngine(undefined, envWith(["terraform", "tofu"], { FAKE_TF_VERSION: "1.9.8" }))).toEqual({ name: "terraform", version: "1.9.8", supported: true });
  });

  it("falls back to tofu when terraform is missing", () => {
    expect(detectEngine(undefined, envWith(["tofu"])).name).toBe("tofu");
  });

  it("uses the engine asked for", () => {
    expect(detectEngine("tofu", envWith(["terraform", "tofu"])).name).toBe("tofu");
  });

  it("fails when the engine asked for is missing, even though the other one is there", () => {
    expect(() => detectEngine("tofu", envWith(["terraform"]))).toThrow(
      new OperationalError(
        "no usable Terraform engine: looked for tofu (not found on PATH or did not answer `tofu version -json`). Install OpenTofu >= 1.5.0, or choose the other engine.",
      ),
    );
  });

  it("fails when no engine is installed, listing what it looked for", () => {
    expect(() => detectEngine(undefined, envWith([]))).toThrow(
      "no usable Terraform engine: looked for terraform (not found on PATH or did not answer `terraform version -json`), tofu (not found on PATH or did not answer `tofu version -json`). Install Terraform >= 1.5.0 or OpenTofu >= 1.5.0.",
    );
  });

  it("fails when the engines found are older than 1.5", () => {
    expect(() => detectEngine(undefined, envWith(["terraform", "tofu"], { FAKE_TF_VERSION: "1.4.7" }))).toThrow(
      "looked for terraform 1.4.7 (too old, need >= 1.5.0), tofu 1.4.7 (too old, need >= 1.5.0)",
    );
  });
});
