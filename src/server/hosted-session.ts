// What a host that embeds sessions (the daemon's chat bridge) may see of one, handed to it by the server
// (ServerOptions.onSession): its ID, whether anything of it runs or waits, its background jobs, its plan, its
// image support and notices. The host drives the session through the protocol like any client; it never
// reaches into the Session itself.
import type { JobManager } from "../agents/jobs";
import { currentPlan, type PlanItem } from "../plan/plan";
import type { SessionScope } from "../scope";
import type { Session } from "./session";

export interface HostedSession {
  readonly id: string;
  /** True while a turn runs or user prompts wait (the session's turn scheduler). */
  busy(): boolean;
  /** The session's background jobs, once it started any. */
  jobs(): Pick<JobManager, "list" | "running" | "describe"> | undefined;
  /** The model's task list as it stands (empty when it has made none). */
  plan(): PlanItem[];
  /** Whether the session's model takes images, and why. */
  readonly images: SessionScope["images"];
  /** Problems with the files the session's instructions come from, found when it started. */
  readonly notices: readonly string[];
}

export function hostedSession(session: Session): HostedSession {
  return {
    id: session.id,
    busy: () => session.scope.turns.busy(),
    jobs: () => session.scope.services.jobs,
    plan: () => currentPlan(session.scope.services),
    get images() {
      return session.scope.images;
    },
    get notices() {
      return session.notices;
    },
  };
}
