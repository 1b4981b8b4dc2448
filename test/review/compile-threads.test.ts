import { compileThreadArgs } from "../../lib/review/compile-threads";

describe("the type checking threads of a review's compile (one of two at once)", () => {
  it.each([
    [1, ["--singleThreaded"]],
    [2, ["--singleThreaded"]],
    [3, ["--singleThreaded"]],
    [4, ["--checkers", "2"]],
    [8, ["--checkers", "4"]],
    [64, ["--checkers", "4"]],
  ])("on %i cores: %j", (cores, args) => {
    expect(compileThreadArgs(cores)).toEqual(args);
  });
});
