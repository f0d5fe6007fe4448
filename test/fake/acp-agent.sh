#!/bin/sh
# Launches the stand-in ACP server (acp-server.ts) under the name it was started as: tests link this file as
# claude-agent-acp, codex-acp, grok or dsh in a temporary ~/.local/bin, so the lookup SCV does is the real one.
exec "${FAKE_ACP_BUN:-bun}" "${FAKE_ACP_SERVER:?FAKE_ACP_SERVER names acp-server.ts}" "$0" "$@"
