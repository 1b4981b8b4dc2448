/**
 * Settings for a process that runs one command and exits (bin/*). Each command bundle imports this
 * first (build/bundle-commands.js), before any schema is built and before cdktf loads; tests and
 * other entry points keep the libraries' defaults.
 *
 * zod: such a process validates each input once, so compiling a fast parser per object schema
 * (zod's JIT, through `new Function`) costs more than it saves. Results are the same either way.
 *
 * cdktf: its modules create tokens as they load (tfExpression's), and each token captures and
 * formats a stack trace. Formatting one from the bundle makes V8 find every line end of its 4 MB
 * (some 50 million instructions), so the traces are off before cdktf loads rather
 * than from synthesis on (stacks/token-stack-traces.ts; RUNNER_FLEET_TOKEN_STACK_TRACES=1 keeps them).
 */
import { config } from "zod";
import { skipTokenStackTraces } from "../../stacks/token-stack-traces";

config({ jitless: true });
skipTokenStackTraces();
