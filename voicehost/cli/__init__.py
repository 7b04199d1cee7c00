"""The `voicehost` command: play, deal, key, hear and models (the README's Commands section is the stable outside).

Every command runs inside `failures.run`, the one place that turns what stops it into a message and
an exit code: 0 done, 1 a game, file or device problem explained on stderr, 2 bad usage.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from voicehost.cli.failures import EXIT_USAGE, run
from voicehost.cli.parser import build_parser, check_play
from voicehost.diagnostics import configure

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed: advice repeats the player's options
        if args.command == "play":
            check_play(parser, args)
        configure(debug=getattr(args, "debug", False), show_heard=getattr(args, "show_heard", False))
    except SystemExit as exit_:  # argparse: --help (0) or bad usage (2), already explained
        return int(exit_.code) if isinstance(exit_.code, int) else EXIT_USAGE
    return run(lambda: _command(args.command)(args))


def _command(name: str) -> Callable[..., int]:
    """The command's handler, imported only when it runs (hear and play load heavier parts)."""
    if name == "play":
        from voicehost.cli.play import command_play

        return command_play
    if name in ("deal", "key"):
        from voicehost.cli.deal import command_deal, command_key

        return command_deal if name == "deal" else command_key
    if name == "hear":
        from voicehost.cli.hear import command_hear

        return command_hear
    from voicehost.cli.models import command_models

    return command_models


if __name__ == "__main__":
    sys.exit(main())
