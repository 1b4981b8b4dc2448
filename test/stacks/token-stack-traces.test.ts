import { Lazy, Tokenization } from "cdktf";
import { skipTokenStackTraces } from "../../stacks/token-stack-traces";

/** The creation stack cdktf recorded for a new string token. */
function creationStackOfNewToken(): string[] {
  const token = Lazy.stringValue({ produce: () => "value" });
  const resolvable = Tokenization.reverseString(token).firstToken;
  if (!resolvable) throw new Error("cdktf did not return a token");
  return resolvable.creationStack;
}

describe("skipTokenStackTraces", () => {
  it("leaves cdktf's capture on when RUNNER_FLEET_TOKEN_STACK_TRACES=1 asks for it, and turns it off otherwise", () => {
    // cdktf records a trace for every token even with the App's stackTraces: false.
    expect(creationStackOfNewToken().length).toBeGreaterThan(0);

    skipTokenStackTraces({ RUNNER_FLEET_TOKEN_STACK_TRACES: "1" });
    expect(creationStackOfNewToken().length).toBeGreaterThan(0);

    skipTokenStackTraces({});
    expect(creationStackOfNewToken()).toEqual([]);
  });
});
