"""The exit codes of every command, declared once (compiler/cli.py turns outcomes into them)."""

EXIT_READY = 0  # ready, or the command succeeded
EXIT_BLOCKED = 1  # the plan parsed but has error-severity issues (or a diff found differences)
EXIT_INPUT = 2  # input or usage error: nothing was written
EXIT_INTERNAL = 3  # a bug: one line saying so; the traceback only with --debug
INTERRUPTED = 130  # 128 + SIGINT, as shells expect
