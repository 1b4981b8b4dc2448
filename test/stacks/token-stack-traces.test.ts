import type * as Cdktf from "cdktf";
import type * as TokenStackTraces from "../../stacks/token-stack-traces";

/**
 * Runs `body` with cdktf and the switch loaded afresh: test/setup-jest.js has already turned the traces
 * off in this file's own module registry, as it does for every test file. The switch requires cdktf's
 * module when called, so it is called inside the fresh registry too.
 */
function withFreshModules(body: (cdktf: typeof Cdktf, skip: typeof TokenStackTraces.skipTokenStackTraces) => void): void {
  jest.isolateModules(() => body(require("cdktf"), require("../../stacks/token-stack-traces").skipTokenStackTraces));
}

/** The creation stack cdktf recorded for a new string token. */
function creationStackOfNewToken({ Lazy, Tokenization }: typeof Cdktf): string[] {
  const token = Lazy.stringValue({ produce: () => "value" });
  const resolvable = Tokenization.reverseString(token).firstToken;
  if (!resolvable) throw new Error("cdktf did not return a token");
  return resolvable.creationStack;
}

describe("skipTokenStackTraces", () => {
  it("leaves cdktf's capture on when RUNNER_FLEET_TOKEN_STACK_TRACES=1 asks for it, and turns it off otherwise", () => {
    withFreshModules((cdktf, skipTokenStackTraces) => {
      // cdktf records a trace for every token even with the App's stackTraces: false.
      expect(creationStackOfNewToken(cdktf).length).toBeGreaterThan(0);

      skipTokenStackTraces({ RUNNER_FLEET_TOKEN_STACK_TRACES: "1" });
      expect(creationStackOfNewToken(cdktf).length).toBeGreaterThan(0);

      skipTokenStackTraces({});
      expect(creationStackOfNewToken(cdktf)).toEqual([]);
    });
  });

  it("is off in every test file, as in the product's synth (test/setup-jest.js)", () => {
    expect(creationStackOfNewToken(require("cdktf"))).toEqual([]);
  });
});
