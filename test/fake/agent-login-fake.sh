# A stand-in for an agent CLI's sign-in commands (claude auth login|logout|status, codex login|logout|login
# status, grok login|logout, interactive pi), run as `bash agent-login-fake.sh <args>` so tests never execute
# a freshly written file. Records each start like agent-fake.sh (<id>.args, <id>.env, <id>.cwd) and answers
# status commands with the real CLIs' output shapes, which name an email and part of a key.
#   FAKE_LOGIN_LOG     directory for the records
#   FAKE_LOGIN_STATE   "in" (default), "out", "hang" (status never answers), or "garbage"
#   FAKE_LOGIN_METHOD  claude: "claude.ai" (default) or "api_key"; codex: "chatgpt" or "apikey" (default)
#   FAKE_LOGIN_EXIT    exit code of login/logout (default 0)
id="$(date +%s%N)-$$"
if [ -n "$FAKE_LOGIN_LOG" ]; then
  env -0 > "$FAKE_LOGIN_LOG/$id.env"
  pwd > "$FAKE_LOGIN_LOG/$id.cwd"
  : > "$FAKE_LOGIN_LOG/$id.tmp"
  [ $# -gt 0 ] && printf '%s\0' "$@" > "$FAKE_LOGIN_LOG/$id.tmp"
  mv "$FAKE_LOGIN_LOG/$id.tmp" "$FAKE_LOGIN_LOG/$id.args"
fi
state="${FAKE_LOGIN_STATE:-in}"
words="$*"
case "$words" in
  "auth status"*)
    [ "$state" = hang ] && exec sleep 30
    [ "$state" = garbage ] && { echo "alice@example.com ???"; exit 3; }
    if [ "$state" = in ]; then
      printf '{\n  "loggedIn": true,\n  "authMethod": "%s",\n  "apiProvider": "firstParty",\n  "email": "alice@example.com",\n  "orgId": "0f3c-org",\n  "orgName": "alice@example.com'"'"'s Organization",\n  "subscriptionType": "max"\n}\n' "${FAKE_LOGIN_METHOD:-claude.ai}"
      exit 0
    fi
    printf '{\n  "loggedIn": false,\n  "authMethod": "none",\n  "apiProvider": "firstParty"\n}\n'
    exit 1 ;;
  "login status"*)
    [ "$state" = hang ] && exec sleep 30
    [ "$state" = garbage ] && { echo "sk-proj-***Zq9X ???" >&2; exit 3; }
    if [ "$state" = in ]; then
      if [ "${FAKE_LOGIN_METHOD:-apikey}" = chatgpt ]; then echo "Logged in using ChatGPT (alice@example.com)" >&2
      else echo "Logged in using an API key - sk-proj-***Zq9X" >&2; fi
      exit 0
    fi
    echo "Not logged in" >&2
    exit 1 ;;
esac
# A sign-in command: show it ran with the terminal's stdout, and write or remove a credential where the real
# CLI would (Grok's auth.json under GROK_HOME, else a file in the private home).
cred="${GROK_HOME:-$HOME}/auth.json"
echo "fake sign-in command: $words"
case "$words" in
  *logout*) rm -f "$cred" ;;
  *login*) mkdir -p "$(dirname "$cred")" && printf '{"grok.com":{"token":"fake-token"}}' > "$cred" ;;
esac
exit "${FAKE_LOGIN_EXIT:-0}"
