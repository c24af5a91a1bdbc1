"""The ``hcrbench`` command line: a thin shell over the library, with one error path for every command.

Each sub-command lives in ``hcrbench.commands.<name>`` and exposes ``register(app)``; commands are discovered
here so adding one touches no other file (a module may also set ``RESUMABLE = {"name", ...}``: the commands that
pick up where they stopped when re-run, so Ctrl-C says so). Command modules import heavy libraries inside their
functions so ``hcrbench --help`` stays fast.

Every way a command can end goes through :func:`main`: a usage mistake (unknown command or option, missing
argument, a value of the wrong type) and a bad input (:class:`~hcrbench.errors.InputError`) print one line
``hcrbench: error: ...`` and exit 2; a check that fails exits 1; Ctrl-C exits 130. Typer may bundle its own copy
of click (``typer._click``), so the click exceptions are looked up where typer really raises them
(:mod:`hcrbench._clickcompat`), and nothing here needs a separately installed click.
"""

from __future__ import annotations

import importlib
import pkgutil
import signal
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from hcrbench import _clickcompat as cc
from hcrbench.commands import _guard as guard
from hcrbench.errors import InputError

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: Commands in the order a user meets them; commands not listed follow alphabetically.
COMMAND_ORDER = ("quickstart", "generate", "describe", "retrieve", "run", "evaluate", "gate", "report", "lock",
                 "verify", "freeze", "check", "convert")

EXIT_CODES_HELP = (
    "Exit codes: 0 ok / pass; 1 a check failed (gate FAIL, verify mismatch, regression, audit / validate "
    "findings, --fail-on) or a write the machine refused; 2 bad input or usage; 130 interrupted."
)


class _OrderedGroup(TyperGroup):
    """The top-level group: lists its commands in workflow order (:data:`COMMAND_ORDER`) in ``--help``."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        known = [n for n in COMMAND_ORDER if n in names]
        return known + sorted(n for n in names if n not in known)


app = typer.Typer(
    name="hcrbench",
    cls=_OrderedGroup,
    help="Tell honestly and fast whether a retriever beats the simple alternatives, under a token budget.",
    epilog=EXIT_CODES_HELP,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: Command names whose work resumes when the same command is run again (collected from the modules).
RESUMABLE: set[str] = set()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("hcrbench")
    except Exception:  # not installed (PYTHONPATH=src): the package's own number
        from hcrbench import __version__

        return __version__


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"hcrbench {_version()}")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=_version_callback),
) -> None:
    """Tell honestly and fast whether a retriever beats the simple alternatives, under a token budget."""
    if ctx.invoked_subcommand is None:  # bare `hcrbench`: help, exit 0
        _echo_help(ctx.get_help())
        raise typer.Exit(0)


def _echo_help(text: str) -> None:
    """Typer's rich help prints itself and returns ''; plain help comes back as text to print."""
    if text.strip():
        typer.echo(text)


def _register_commands() -> None:
    import hcrbench.commands as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if mod.startswith("_"):
            continue
        module = importlib.import_module(f"hcrbench.commands.{mod}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)
        RESUMABLE.update(getattr(module, "RESUMABLE", ()))


_register_commands()


def fail(message: str, code: int = EXIT_USAGE) -> None:
    """Print one error line to stderr and exit with ``code``."""
    message = " ".join(str(message).split())
    sys.stderr.write(f"hcrbench: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(code)


_COMMAND: Any = None
_COMMAND_KEY: tuple[int, int] | None = None


def command() -> Any:
    """The click command tree of :data:`app` with human-readable help (see ``_clickcompat``); built once, and
    again if a command was registered on :data:`app` since (a plugin, a test)."""
    global _COMMAND, _COMMAND_KEY
    key = (len(app.registered_commands), len(app.registered_groups))
    if _COMMAND is None or key != _COMMAND_KEY:
        cmd = typer.main.get_command(app)
        cc.humanize(cmd, epilog=EXIT_CODES_HELP)
        cc.repeats(cmd)  # a repeated option adds up (lists) or is refused, never silently last-wins
        guard.install(cmd)  # numbers in range, no output over an input: before any command's body runs
        _COMMAND, _COMMAND_KEY = cmd, key
    return _COMMAND


class _SigintFlag:
    """Remembers that SIGINT arrived, then raises KeyboardInterrupt as Python's default handler would.

    Typer turns a KeyboardInterrupt into ``Exit(130)`` before :func:`main` can see it; the flag is how main
    still knows the user pressed Ctrl-C (and can tell them whether re-running resumes).
    """

    def __init__(self) -> None:
        self.hit = False
        self.previous: Any = None

    def __call__(self, signum: int, frame: Any) -> None:
        self.hit = True
        raise KeyboardInterrupt

    def __enter__(self) -> _SigintFlag:
        self.previous = None
        try:
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a parent that ignores Ctrl-C keeps it so
                self.previous = signal.signal(signal.SIGINT, self)
        except ValueError:  # not the main thread: leave signals alone
            self.previous = None
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _subcommand(argv: list[str]) -> str | None:
    """The command name in ``argv`` (the root group takes no option values, so it is the first non-option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _interrupted(argv: list[str]) -> int:
    flush_warnings()  # what was noticed before Ctrl-C, then the last word
    name = _subcommand(argv)
    if name in RESUMABLE:
        sys.stderr.write("\nhcrbench: interrupted; run the same command again to resume\n")
    else:
        sys.stderr.write("\nhcrbench: interrupted\n")
    sys.stderr.flush()
    return EXIT_INTERRUPTED


class _WarnOnce:
    """Collects each distinct warning once and prints it to stderr as ``warning: <message>`` (no file, line or
    class name).

    Installed by :func:`main` for the whole run, so every command gets it; a library warning that repeats per
    query or per batch is shown the first time only. Warnings are held until the command ends (or until it calls
    :func:`flush_warnings`, before printing its results) and dropped when it ends in an error, whose one line
    is then all the user sees.
    """

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.pending: list[str] = []

    def __call__(self, message: Any, category: type, filename: str, lineno: int, file: Any = None,
                 line: str | None = None) -> None:
        text = " ".join(str(message).split())
        if text not in self.seen:
            self.seen.add(text)
            self.pending.append(text)

    def flush(self) -> None:
        lines, self.pending = self.pending, []
        try:
            for text in lines:
                sys.stderr.write(f"warning: {text}\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr gone (closed pipe): nothing to tell
            pass


_WARNINGS: _WarnOnce | None = None


def flush_warnings() -> None:
    """Print the warnings collected so far (a command calls this just before it prints its results)."""
    if _WARNINGS is not None:
        _WARNINGS.flush()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script. Returns the exit code (errors raise ``SystemExit(2)``)."""
    import warnings

    from hcrbench.errors import HcrbenchWarning

    global _WARNINGS
    argv = list(sys.argv[1:] if argv is None else argv)
    previous = _WARNINGS
    with warnings.catch_warnings():
        warnings.simplefilter("always", HcrbenchWarning)  # shown once each by _WarnOnce, not once per line
        warnings.showwarning = _WARNINGS = _WarnOnce()
        try:
            code = _main(argv)
        except SystemExit as e:  # an error line was printed: it is the whole message
            if e.code != EXIT_USAGE:
                _WARNINGS.flush()
            raise
        finally:
            shown, _WARNINGS = _WARNINGS, previous
        shown.flush()
        return code


def _main(argv: list[str]) -> int:
    with _SigintFlag() as sigint:
        try:
            rv = command().main(args=argv, prog_name="hcrbench", standalone_mode=False)
        except InputError as e:
            fail(str(e), getattr(e, "exit_code", EXIT_USAGE))  # WriteError (disk full, read-only): 1
        except KeyboardInterrupt:
            return _interrupted(argv)
        except cc.ABORT:
            if sigint.hit:
                return _interrupted(argv)
            sys.stderr.write("hcrbench: aborted\n")
            return EXIT_INTERRUPTED
        except cc.EXIT as e:
            rv = int(getattr(e, "exit_code", 0) or 0)
        except cc.NO_ARGS_IS_HELP as e:  # a command group given alone: its help, like bare `hcrbench`
            _echo_help(e.format_message())  # the group's help, made when the error was
            return EXIT_OK
        except cc.CLICK_EXCEPTION as e:
            name = _subcommand(argv)
            fail(cc.one_line(e, name if name in command().commands else None))
        except ImportError as e:  # an optional package missing at run time: one line, never a traceback
            name = _subcommand(argv)
            fail(cc.import_failure(e, name if name in command().commands else None))
        except BrokenPipeError:  # `hcrbench ... | head`: the reader left; nothing more to say
            sys.stderr.close()
            return EXIT_OK
        except OSError as e:  # the machine, not the input (disk full, read-only, I/O error): one line, exit 1
            from hcrbench.errors import WriteError

            err = WriteError.from_os(e, e.filename)
            fail(str(err), err.exit_code)
    if sigint.hit and rv == EXIT_INTERRUPTED:
        return _interrupted(argv)
    if isinstance(rv, bool) or not isinstance(rv, int):
        return EXIT_OK
    return rv


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
