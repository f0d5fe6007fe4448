// Exit statuses every scv command uses; README and `--help` show the same table.

export const EXIT_CODES = `Exit codes:
  0    done
  1    the turn (or the command) failed
  2    usage error: an unknown option, a missing or extra argument
  3    scv daemon status: the daemon is not running
  4    scv exec: the turn ended, but tool calls were denied because nobody could approve them
       (no terminal to ask and no --yes); stderr says how many
  78   configuration error (a bad config file, no provider key)
  130  interrupted (Ctrl-C)`;
