# A stand-in for an agent CLI (claude, codex, grok, dsh, pi), run as `bash agent-fake.sh <args>` so tests never
# execute a freshly written file. It records what it was started with and replays a canned stdout stream.
#   FAKE_AGENT_LOG      directory: writes <id>.args (NUL-separated argv), <id>.env (env -0), <id>.cwd
#   FAKE_AGENT_STDOUT   file copied to stdout; @SESSION@ becomes the value after --session-id/--resume/resume
#   FAKE_AGENT_STDERR   text written to stderr
#   FAKE_AGENT_LAST     text written to the file named after -o (Codex's last-message file)
#   FAKE_AGENT_CHILD    when set, leaves `sleep 300` running in the background (its pid in <id>.child)
#   FAKE_AGENT_SLEEP    seconds to sleep after writing output
#   FAKE_AGENT_HOLD     a file: after writing output, waits until it exists (the test decides when the run ends)
#   FAKE_AGENT_DONE     a directory: <id>.done is made there as the last thing before the exit
#   FAKE_AGENT_EXIT     exit code (default 0)
#   FAKE_AGENT_SIGNAL   a signal it then kills itself with (a crash)
#   FAKE_AGENT_TMPFILE  a file name it leaves in $TMPDIR (what real CLIs leave there)
#   FAKE_AGENT_STDIN    when set, copies stdin to <id>.stdin first (hangs unless stdin is at EOF)
#   FAKE_AGENT_WRITE    NAME=TEXT: writes TEXT (and a newline) to NAME in its working directory (an agent's edit);
#                       @ID@ in TEXT becomes this run's id, so two runs write different text
id="$(date +%s%N)-$$"
session=""
out_file=""
prev=""
for a in "$@"; do
  case "$prev" in
    --session-id|--resume|resume|-s|-r) session="$a" ;;
    -o) out_file="$a" ;;
  esac
  prev="$a"
done
if [ -n "$FAKE_AGENT_LOG" ]; then
  env -0 > "$FAKE_AGENT_LOG/$id.env"
  pwd > "$FAKE_AGENT_LOG/$id.cwd"
  # .args last and by rename, so a reader that sees it sees a complete record
  printf '%s\0' "$@" > "$FAKE_AGENT_LOG/$id.tmp" && mv "$FAKE_AGENT_LOG/$id.tmp" "$FAKE_AGENT_LOG/$id.args"
fi
if [ -n "$FAKE_AGENT_STDIN" ] && [ -n "$FAKE_AGENT_LOG" ]; then
  cat > "$FAKE_AGENT_LOG/$id.stdin"
fi
if [ -n "$FAKE_AGENT_CHILD" ]; then
  sleep 300 &
  [ -n "$FAKE_AGENT_LOG" ] && echo $! > "$FAKE_AGENT_LOG/$id.child"
fi
if [ -n "$FAKE_AGENT_STDOUT" ]; then
  if [ -n "$session" ]; then sed "s/@SESSION@/$session/g" "$FAKE_AGENT_STDOUT"; else cat "$FAKE_AGENT_STDOUT"; fi
fi
if [ -n "$FAKE_AGENT_WRITE" ]; then text="${FAKE_AGENT_WRITE#*=}"; printf '%s\n' "${text//@ID@/$id}" > "${FAKE_AGENT_WRITE%%=*}"; fi
[ -n "$FAKE_AGENT_STDERR" ] && printf '%s\n' "$FAKE_AGENT_STDERR" >&2
[ -n "$out_file" ] && [ -n "$FAKE_AGENT_LAST" ] && printf '%s' "$FAKE_AGENT_LAST" > "$out_file"
[ -n "$FAKE_AGENT_TMPFILE" ] && [ -n "$TMPDIR" ] && mkdir -p "$TMPDIR/$FAKE_AGENT_TMPFILE" && : > "$TMPDIR/$FAKE_AGENT_TMPFILE/left"
[ -n "$FAKE_AGENT_SLEEP" ] && sleep "$FAKE_AGENT_SLEEP"
if [ -n "$FAKE_AGENT_HOLD" ]; then while [ ! -e "$FAKE_AGENT_HOLD" ]; do sleep 0.05; done; fi
[ -n "$FAKE_AGENT_SIGNAL" ] && kill -"$FAKE_AGENT_SIGNAL" $$
[ -n "$FAKE_AGENT_DONE" ] && : > "$FAKE_AGENT_DONE/$id.done"
exit "${FAKE_AGENT_EXIT:-0}"
