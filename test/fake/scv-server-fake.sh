#!/usr/bin/env bash
# A stand-in for `scv server --stdio` speaking real protocol v3 lines, run through bash by the tests. The first
# word of each prompt picks what the nested "model" does:
#   hello    text in two lines, one bash tool with progress, then a completed turn
#   approve  asks approval.requested for a bash command and reports whether it was approved
#   sleep    runs until turn.cancel, then ends the turn cancelled
#   stubborn runs and ignores turn.cancel
#   die      writes to stderr and exits 3 mid-turn
#   jobs     starts a background job (tool.completed.jobs), then reports it in a turn of its own 1 s later
#            (FAKE_SCV_REPORT_SECONDS sets how long; with FAKE_SCV_REPORT_FILE set, once that file exists
#            instead, so a test decides when), asking an approval in that report turn
#   seen     an agent_status result that shows job-1 finished (the model has seen it)
# Every request line is appended to $FAKE_SCV_LOG/requests. FAKE_SCV_IGNORE_EOF=1 keeps running after EOF;
# FAKE_SCV_MUTE=1 answers nothing at all.
log=${FAKE_SCV_LOG:-/dev/null}
[ "$log" = /dev/null ] || mkdir -p "$log"
req() { [ "$log" = /dev/null ] || printf '%s\n' "$1" >>"$log/requests"; }
send() { printf '%s\n' "$1"; }
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" <<<"$2"; }
num() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$2"; }
echo "$$" >"${log%/dev/null}/pid" 2>/dev/null

sid="s-fake"
turn=0
current=""
mode=""
pending_approval=""
report_at=0
usage='{"input_tokens":10,"output_tokens":5,"cached_input_tokens":0}'
user_origin='{"kind":"user"}'
ended() { # turn status reply [origin]
  local origin=${4:-$user_origin}
  send "{\"jsonrpc\":\"2.0\",\"method\":\"turn.ended\",\"params\":{\"session_id\":\"$sid\",\"turn_id\":\"$1\",\"status\":\"$2\",\"reply\":\"$3\",\"usage\":$usage,\"origin\":$origin}}"
}
note() { # method params-json (session/turn added)
  send "{\"jsonrpc\":\"2.0\",\"method\":\"$1\",\"params\":{\"session_id\":\"$sid\",\"turn_id\":\"$current\",$2}}"
}

run_turn() {
  local prompt=$1
  mode=${prompt%% *}
  note turn.started "\"origin\":{\"kind\":\"user\"},\"prompt\":\"x\""
  case $mode in
    hello)
      note assistant.delta '"text":"line one\nline "'
      note assistant.delta '"text":"two\n"'
      note tool.started '"call_id":"c1","tool":"bash","label":"$ make test","risk":"process"'
      note tool.progress '"call_id":"c1","line":"compiling"'
      note tool.completed '"call_id":"c1","tool":"bash","ok":true,"output":"SECRET TOOL OUTPUT"'
      ended "$current" completed "all done"
      current="" ;;
    approve)
      pending_approval="ap-$turn"
      note approval.requested "\"approval_id\":\"$pending_approval\",\"call_id\":\"c2\",\"tool\":\"bash\",\"risk\":\"process\",\"summary\":\"\$ rm -rf build\",\"workspace\":\"/w\"" ;;
    sleep|stubborn) ;;
    die)
      echo "boom: the nested server broke" >&2
      exit 3 ;;
    jobs)
      note tool.completed '"call_id":"c3","tool":"agent","ok":true,"output":"{\"job\":\"job-1\",\"status\":\"running\"}","jobs":["job-1"]'
      ended "$current" completed "started job-1"
      current=""
      report_at=$((SECONDS + ${FAKE_SCV_REPORT_SECONDS:-1}))
      [ -n "${FAKE_SCV_REPORT_FILE:-}" ] && report_at=-1 ;;
    seen)
      note tool.completed '"call_id":"c4","tool":"agent_status","ok":true,"output":"{\"jobs\":[{\"job\":\"job-1\",\"status\":\"completed\"}]}"'
      ended "$current" completed "job-1 is done"
      current="" ;;
    *)
      ended "$current" completed "ok"
      current="" ;;
  esac
}

report_turn() {
  turn=$((turn + 1))
  local t="t$turn"
  send "{\"jsonrpc\":\"2.0\",\"method\":\"turn.started\",\"params\":{\"session_id\":\"$sid\",\"turn_id\":\"$t\",\"origin\":{\"kind\":\"background\",\"jobs\":[\"job-1\"]},\"prompt\":\"[SCV background report]\"}}"
  send "{\"jsonrpc\":\"2.0\",\"method\":\"approval.requested\",\"params\":{\"session_id\":\"$sid\",\"turn_id\":\"$t\",\"approval_id\":\"ap-report\",\"call_id\":\"c9\",\"tool\":\"bash\",\"risk\":\"process\",\"summary\":\"\$ touch x\",\"workspace\":\"/w\"}}"
  report_turn_id=$t
}

# A line longer than a pipe's atomic write (4 KiB: session.start's sandbox ceiling can be) may arrive in parts; a
# read that times out mid-line keeps the part in `chunk`, so it is held in `partial` until the line's end comes.
partial=""
while :; do
  if IFS= read -r -t 0.2 chunk; then
    line=$partial$chunk
    partial=""
    req "$line"
    [ "${FAKE_SCV_MUTE:-}" = 1 ] && continue
    id=$(num id "$line")
    method=$(field method "$line")
    case $method in
      initialize) send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"protocol_version\":3,\"server\":{\"name\":\"scv\",\"version\":\"0.0.0-fake\"}}}" ;;
      session.start) send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"session_id\":\"$sid\",\"workspace\":\"$(field cwd "$line")\",\"tools\":[\"bash\"],\"model\":\"fake\"}}" ;;
      turn.start)
        turn=$((turn + 1)); current="t$turn"
        send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"turn_id\":\"$current\",\"queued\":false}}"
        run_turn "$(field prompt "$line")" ;;
      turn.cancel)
        send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"cancelled\":true}}"
        if [ -n "$current" ] && [ "$mode" != stubborn ]; then ended "$current" cancelled ""; current=""; fi ;;
      approval.resolve)
        send "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"ok\":true}}"
        approved=$(sed -n 's/.*"approved":\(true\|false\).*/\1/p' <<<"$line")
        aid=$(field approval_id "$line")
        if [ "$aid" = ap-report ]; then
          ended "$report_turn_id" completed "reported" '{"kind":"background","jobs":["job-1"]}'
        elif [ "$aid" = "$pending_approval" ] && [ -n "$current" ]; then
          ended "$current" completed "approved=$approved"; current=""
        fi ;;
      *) send "{\"jsonrpc\":\"2.0\",\"id\":${id:-null},\"error\":{\"code\":-32601,\"message\":\"method not found: $method\"}}" ;;
    esac
  else
    rc=$?
    partial=$partial$chunk
    if [ $rc -le 128 ]; then # EOF (a timeout returns > 128)
      [ "${FAKE_SCV_IGNORE_EOF:-}" = 1 ] && { trap '' TERM; while :; do sleep 1; done; }
      exit 0
    fi
  fi
  if [ "$report_at" -gt 0 ] && [ "$SECONDS" -ge "$report_at" ]; then report_at=0; report_turn; fi
  if [ "$report_at" -lt 0 ] && [ -e "$FAKE_SCV_REPORT_FILE" ]; then report_at=0; report_turn; fi
done
