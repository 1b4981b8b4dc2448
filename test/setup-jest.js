// cdktf's matchers (toHaveResourceWithProperties, toBeValidTerraform, ...), registered by name and
// loaded on first use: requiring cdktf costs every suite a noticeable part of its start-up, and most
// suites never synthesize a stack.
const CDKTF_MATCHERS = [
  "toHaveResource",
  "toHaveResourceWithProperties",
  "toHaveDataSource",
  "toHaveDataSourceWithProperties",
  "toHaveProvider",
  "toHaveProviderWithProperties",
  "toBeValidTerraform",
  "toPlanSuccessfully",
];

let cdktfMatchers;

/** cdktf's own matchers, as its Testing.setupJest() hands them to expect.extend (which then gets them for good). */
function loadCdktfMatchers() {
  if (!cdktfMatchers) {
    const extend = expect.extend;
    expect.extend = (matchers) => (cdktfMatchers = matchers);
    try {
      require("cdktf").Testing.setupJest();
    } finally {
      expect.extend = extend;
    }
    const missing = CDKTF_MATCHERS.filter((name) => typeof cdktfMatchers?.[name] !== "function");
    if (missing.length > 0) throw new Error(`cdktf's Testing.setupJest() no longer registers ${missing.join(", ")}`);
    expect.extend(cdktfMatchers);
  }
  return cdktfMatchers;
}

expect.extend(
  Object.fromEntries(
    CDKTF_MATCHERS.map((name) => [
      name,
      function (...args) {
        return loadCdktfMatchers()[name].apply(this, args);
      },
    ]),
  ),
);

// Synthesis in the product records no creation stack for cdktf's tokens (stacks/token-stack-traces.ts);
// tests that build stacks themselves (Testing.synth) run the same way. Under jest each trace is also
// source-mapped, which made it a third of a construct test's CPU. RUNNER_FLEET_TOKEN_STACK_TRACES=1 keeps them.
require("../stacks/token-stack-traces").skipTokenStackTraces();
