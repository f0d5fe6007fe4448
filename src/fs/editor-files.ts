// Files as an editor holds them: when SCV serves an editor (`scv acp`) that offers its file access, `read` and
// `write` go through the editor, so they see and change its unsaved buffers. A session service: the client
// that started the session attaches it (`SessionServices.editorFiles`), and file tools use it when it is
// there (else the disk).
export interface EditorFiles {
  /** The file's text as the editor has it (an unsaved buffer included); absent when the editor offers no reads. */
  read?(path: string): Promise<string>;
  /** Writes the file's text through the editor; absent when the editor offers no writes. */
  write?(path: string, content: string): Promise<void>;
}
