// `scv rules list|rm`: the approval rules kept from approval cards ("always allow commands starting with
// `npm test`"), for one workspace or every workspace (src/guard/rules.ts).
import { scvHome } from "../config/load";
import { loadRules, prefixText, removeRule, rulesFile } from "../guard/rules";
import { formatWhen } from "../text/when";
import { defineCommand } from "./command";

const list = defineCommand({
  meta: { name: "list", description: "List the kept approval rules (command prefixes that run without asking)" },
  args: { json: { type: "boolean", description: "print JSON" } },
  run({ args }) {
    const home = scvHome();
    const set = loadRules(home);
    if (set.problem) {
      process.stderr.write(`scv rules list: ${set.problem}\n`);
      process.exitCode = 1;
      return;
    }
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ file: rulesFile(home), rules: set.rules }, null, 2)}\n`);
      return;
    }
    if (!set.rules.length) {
      process.stdout.write("no approval rules kept (answer p or u at an approval card to keep one)\n");
      return;
    }
    for (const r of set.rules) {
      const where = r.workspace ? `in ${r.workspace}` : "in every workspace";
      process.stdout.write(`${r.id}  ${prefixText(r.prefix)}  (${where}, kept ${formatWhen(r.created_at)})\n`);
    }
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Remove a kept approval rule by its ID (see scv rules list)" },
  args: { id: { type: "positional", description: "the rule's ID", required: true } },
  run({ args }) {
    const home = scvHome();
    try {
      if (!removeRule(home, String(args.id))) {
        process.stderr.write(`scv rules rm: no rule with ID ${JSON.stringify(args.id)}; scv rules list shows the IDs\n`);
        process.exitCode = 1;
        return;
      }
    } catch (e) {
      process.stderr.write(`scv rules rm: ${(e as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`removed rule ${args.id}\n`);
  },
});

export default defineCommand({ meta: { name: "rules", description: "Inspect and remove kept approval rules" }, subCommands: { list, rm } });
