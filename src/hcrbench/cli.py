"""The ``hcrbench`` command line: a thin shell over the library.

Each sub-command lives in ``hcrbench.commands.<name>`` and exposes ``register(app)``; commands are discovered
here so adding one touches no other file. Command modules import heavy libraries inside their functions so
``hcrbench --help`` stays fast. A user mistake (:class:`~hcrbench.errors.InputError`) prints one line and exits 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from hcrbench.errors import InputError

app = typer.Typer(
    name="hcrbench",
    help="Tell honestly and fast whether a retriever beats the simple alternatives, under a token budget.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    import hcrbench.commands as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if mod.startswith("_"):
            continue
        module = importlib.import_module(f"hcrbench.commands.{mod}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_commands()


def fail(message: str, code: int = 2) -> None:
    """Print one error line to stderr and exit with ``code``."""
    sys.stderr.write(f"hcrbench: error: {message}\n")
    raise SystemExit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script. Returns the exit code."""
    try:
        rv = app(args=argv, standalone_mode=False)
        if isinstance(rv, int):
            return rv
    except InputError as e:
        fail(str(e))
    except (typer.Exit, SystemExit) as e:
        code = getattr(e, "exit_code", None)
        if code is None:
            code = e.code if isinstance(e, SystemExit) else 0
        return int(code or 0)
    except typer.Abort:
        sys.stderr.write("hcrbench: aborted\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write("hcrbench: interrupted\n")
        return 130
    except Exception as e:  # click usage errors
        import click

        if isinstance(e, click.ClickException):
            e.show()
            return 2
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
