/**
 * cdktf records where every token was created (a full stack trace, captured with
 * no depth limit and formatted) for each Lazy, Intrinsic and computed list, even
 * with the App's `stackTraces: false`, which only covers construct metadata. The
 * trace is read only to word an error about a token that fails to resolve. A cell
 * creates thousands of tokens, so the traces cost a large share of synth time.
 *
 * The capture function is shared through the module's exports object, which every
 * cdktf module reads at call time, so replacing it here turns the capture off.
 * RUNNER_FLEET_TOKEN_STACK_TRACES=1 keeps it, for debugging such an error.
 */
type StackTraceModule = typeof import("cdktf/lib/tokens/private/stack-trace");

export function skipTokenStackTraces(env: NodeJS.ProcessEnv = process.env): void {
  if (env.RUNNER_FLEET_TOKEN_STACK_TRACES === "1") return;
  // The module object itself (not an import binding), so its export can be replaced.
  const tokenStackTrace = require("cdktf/lib/tokens/private/stack-trace") as StackTraceModule;
  tokenStackTrace.captureStackTrace = () => [];
}
