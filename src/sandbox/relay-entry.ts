// The relay's entry when SCV runs from source (tests): the compiled binary enters through cli/main.ts instead.
import { runRelay } from "./relay";

runRelay(process.argv.slice(3));
