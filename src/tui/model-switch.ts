// `/model` and `/effort`: show the profiles and models there are, and switch the open session's model, provider
// profile or reasoning effort for its next turn (session.configure), keeping the conversation.
import type { Style as Theme } from "../terminal/style";
import { sanitize } from "./text";
import type { ConversationView } from "./view";

/** What the commands need of the app (run-command's SlashContext has it all). */
export interface ModelSwitchContext {
  view: ConversationView;
  theme: Theme;
  cwd: string;
  env: NodeJS.ProcessEnv;
  session(): { id: string };
  request<T = any>(method: string, params: unknown): Promise<T>;
  switched(next: { model: string; contextWindow?: number }): void;
  requestRender(): void;
  /** Shows the picker and resolves with what the person chose, or undefined (Esc). Absent: /model lists instead. */
  pickModel?(picker: import("./model-picker").ModelPicker): Promise<import("./model-picker").ModelChoice | undefined>;
}

interface Configured {
  provider: string;
  model: string;
  wire_api: string;
  reasoning_effort?: string;
  context_window: number;
  notices?: string[];
}

// What each endpoint's /models answered, asked once per profile while the TUI runs.
const endpointModels = new Map<string, Promise<import("../provider/list-models").ModelList>>();

async function configure(ctx: ModelSwitchContext, change: { provider?: string; model?: string; reasoning_effort?: string }): Promise<Configured> {
  const r = await ctx.request<Configured>("session.configure", { session_id: ctx.session().id, ...change });
  ctx.switched({ model: r.model, contextWindow: r.context_window });
  return r;
}

const describe = (r: Configured) => `${r.model} on ${r.provider} (${r.wire_api} API${r.reasoning_effort ? `, effort ${r.reasoning_effort}` : ""})`;

/** `/model`: the list; `/model NAME`: a profile (its model) or a model of this profile; `/model PROFILE MODEL`. */
export async function modelCommand(ctx: ModelSwitchContext, arg: string): Promise<void> {
  const { view, theme } = ctx;
  const { loadConfig } = await import("../config/load");
  const { config } = loadConfig({ cwd: ctx.cwd, env: ctx.env });
  const words = arg.split(/\s+/).filter(Boolean);
  if (words.length === 0) return ctx.pickModel ? pickModel(ctx, config, await configure(ctx, {})) : listModels(ctx, config, await configure(ctx, {}));
  if (words.length > 2) {
    view.say("/model takes a profile, a model, or a profile and a model: /model NAME, /model PROFILE MODEL", theme.yellow);
    return;
  }
  const [first, second] = words as [string, string | undefined];
  const change = second ? { provider: first, model: second } : Object.hasOwn(config.providers, first) ? { provider: first } : { model: first };
  const r = await configure(ctx, change);
  view.say(`model: ${describe(r)} from the next turn; the conversation goes on`);
  for (const n of r.notices ?? []) view.say(`note: ${n}`, theme.yellow);
}

/** `/model` in the terminal: the picker over the profiles and, as they arrive, the endpoint's models. */
async function pickModel(ctx: ModelSwitchContext, config: import("../config/schema").Config, now: Configured) {
  const { view, theme } = ctx;
  const { ModelPicker } = await import("./model-picker");
  const profiles = Object.entries(config.providers).map(([name, p]) => ({
    name,
    detail: `profile · ${p.model} · ${p.wire_api} API · ${hostOf(p.base_url)}`,
    change: { provider: name },
    ...(name === now.provider && p.model === now.model ? { current: true } : {}),
  }));
  const picker = new ModelPicker(profiles);
  const profile = config.providers[now.provider];
  if (profile) {
    picker.note = `asking ${hostOf(profile.base_url)} for its models…`;
    void endpointModelsOf(ctx, now.provider, profile).then((r) => {
      if ("ids" in r && r.ids.length) {
        picker.add(r.ids.map((id) => ({ name: id, detail: `model at ${hostOf(profile.base_url)} (${now.provider})`, change: { model: id }, ...(id === now.model && !profiles.some((p) => p.current) ? { current: true } : {}) })));
        picker.note = undefined;
      } else picker.note = "error" in r ? `the endpoint lists no models (${r.error})` : "the endpoint lists no models";
      ctx.requestRender();
    });
  }
  const choice = await ctx.pickModel!(picker);
  if (!choice) {
    view.say(`model: ${describe(now)} (unchanged)`, theme.dim);
    return;
  }
  const r = await configure(ctx, choice.change);
  view.say(`model: ${describe(r)} from the next turn; the conversation goes on`);
  for (const n of r.notices ?? []) view.say(`note: ${n}`, theme.yellow);
}

/** What the profile's endpoint answers at GET /models, asked once per profile while the TUI runs. */
async function endpointModelsOf(ctx: ModelSwitchContext, name: string, profile: import("../config/schema").Config["providers"][string]) {
  let listed = endpointModels.get(name);
  if (!listed) {
    const { listEndpointModels } = await import("../provider/list-models");
    listed = listEndpointModels(profile, ctx.env);
    endpointModels.set(name, listed);
  }
  return listed;
}

async function listModels(ctx: ModelSwitchContext, config: import("../config/schema").Config, now: Configured) {
  const { view, theme } = ctx;
  view.say(`model: ${describe(now)}`);
  for (const [name, p] of Object.entries(config.providers)) {
    const mark = name === now.provider ? "*" : " ";
    view.say(`${mark} ${name}: ${sanitize(p.model)} · ${p.wire_api} API · ${sanitize(hostOf(p.base_url))}`, name === now.provider ? undefined : theme.dim);
  }
  const profile = config.providers[now.provider];
  if (profile) {
    ctx.requestRender();
    const r = await endpointModelsOf(ctx, now.provider, profile);
    if ("ids" in r && r.ids.length) {
      const shown = r.ids.slice(0, 40).map(sanitize);
      view.say(`models at ${sanitize(hostOf(profile.base_url))}: ${shown.join(", ")}${r.ids.length > shown.length ? ` and ${r.ids.length - shown.length} more` : ""}`, theme.dim);
    } else if ("error" in r) view.say(`the endpoint lists no models (${sanitize(r.error)})`, theme.dim);
  }
  view.say("switch with /model NAME (a profile, or a model of this one), /model PROFILE MODEL, /effort LEVEL", theme.dim);
}

/** `/effort`: the reasoning effort in force; `/effort LEVEL` switches it for the next turn. */
export async function effortCommand(ctx: ModelSwitchContext, arg: string): Promise<void> {
  const { view, theme } = ctx;
  const { REASONING_EFFORTS } = await import("../config/reasoning");
  if (!arg) {
    const r = await configure(ctx, {});
    view.say(`reasoning effort: ${r.reasoning_effort ?? "the endpoint's default"} (one of ${REASONING_EFFORTS.join(", ")})`);
    return;
  }
  if (!(REASONING_EFFORTS as readonly string[]).includes(arg)) {
    view.say(`/effort takes one of ${REASONING_EFFORTS.join(", ")}`, theme.yellow);
    return;
  }
  const r = await configure(ctx, { reasoning_effort: arg });
  view.say(`reasoning effort: ${r.reasoning_effort} from the next turn (${r.model})`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
