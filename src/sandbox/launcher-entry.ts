// The launcher's entry when SCV runs from source (tests, `bun src/cli/main.ts`): the compiled binary enters
// through cli/main.ts instead. Kept apart so a sandboxed command from source does not transpile the CLI first.
import { runLauncher } from "./launcher";

runLauncher(process.argv.slice(3));
