import type * as Cdktf from "cdktf";
import type * as TokenStackTraces from "../../stacks/token-stack-traces";

/** The creation stack cdktf recorded for a new string token. */
function creationStackOfNewToken({ Lazy, Tokenization }: typeof Cdktf): string[] {
  const token = Lazy.stringValue({ produce: () => "value" });
  const resolvable = Tokenization.reverseString(token).firstToken;
  if (!resolvable) throw new Error("cdktf did not return a token");
  return resolvable.creationStack;
}

describe("skipTokenStackTraces", () => {
  it("leaves cdktf's capture on when RUNNER_FLEET_TOKEN_STACK_TRACES=1 asks for it, and turns it off otherwise", () => {
    // test/setup-jest.js turns the traces off for every test file: this test runs on its own copies of
    // cdktf and of the switch (every require inside the callback, the switch's own included), with
    // cdktf's capture as cdktf ships it.
    jest.isolateModules(() => {
      const cdktf = require("cdktf") as typeof Cdktf;
      const { skipTokenStackTraces } = require("../../stacks/token-stack-traces") as typeof TokenStackTraces;

      // cdktf records a trace for every token even with the App's stackTraces: false.
      expect(creationStackOfNewToken(cdktf).length).toBeGreaterThan(0);

      skipTokenStackTraces({ RUNNER_FLEET_TOKEN_STACK_TRACES: "1" });
      expect(creationStackOfNewToken(cdktf).length).toBeGreaterThan(0);

      skipTokenStackTraces({});
      expect(creationStackOfNewToken(cdktf)).toEqual([]);
    });
  });

  it("is off in the test files' own cdktf (test/setup-jest.js), as in the product's synthesis", () => {
    expect(creationStackOfNewToken(require("cdktf") as typeof Cdktf)).toEqual([]);
  });
});
