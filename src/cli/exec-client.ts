// `scv exec` drives its session through the shared in-process client.
export { createInProcessClient } from "../server/in-process-client";
