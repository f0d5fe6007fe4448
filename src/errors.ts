// Errors shared by every concern.

/** A failure the model should read as the tool's result (not a crash). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
