"""What the CLI needs from click, wherever typer keeps it, and the help text made readable.

Recent typer releases bundle their own click (``typer._click``) and raise its exceptions; older ones raise those
of the separately installed ``click``. The tuples below hold whichever classes can really be raised, so
``except`` clauses match in both cases and a core-only install (no ``click`` package) never imports it.

:func:`humanize` rewrites the built command tree's help once: flags without a value placeholder, values named
by plain words (``INTEGER``, ``NUMBER``, ``TEXT``, ``PATH``) instead of Python types (``<list[Path]>``), and
arguments shown as ``QRELS RUNS...`` instead of ``{qrels} {runs}...``.

:func:`repeats` makes a repeated option add up or fail instead of silently keeping its last value (click's
default): an option whose value is a comma-separated list (``--metrics``, ``--weights``, any whose help says
"comma") accumulates repeats, so ``-m nDCG@10 -m AP`` scores both as trec_eval's ``-m`` does; any other option that
takes one value refuses a second with one line. Options declared repeatable (``--param``) are left alone.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from pathlib import PurePath
from typing import Any

import typer


def _click_modules() -> list[Any]:
    mods = []
    try:
        from typer import _click as bundled  # typer >= 0.2x

        mods.append(bundled)
    except ImportError:
        import click  # older typer depends on click and raises its exceptions

        mods.append(click)
    return mods


_MODS = _click_modules()


def _classes(attr: str, *extra: type) -> tuple[type, ...]:
    found = [getattr(m.exceptions, attr) for m in _MODS if hasattr(m.exceptions, attr)]
    return tuple(dict.fromkeys([*found, *extra]))


CLICK_EXCEPTION = _classes("ClickException")
USAGE_ERROR = _classes("UsageError")
NO_ARGS_IS_HELP = _classes("NoArgsIsHelpError")
ABORT = _classes("Abort", typer.Abort)
EXIT = _classes("Exit", typer.Exit)


def is_usage(e: BaseException) -> bool:
    return isinstance(e, USAGE_ERROR)


_PYDANTIC_WANTS = {"int_parsing": "an integer", "int_from_float": "an integer", "float_parsing": "a number",
                   "bool_parsing": "true or false", "int_type": "an integer", "float_type": "a number"}


def _message(e: Any) -> str:
    """The problem in plain words; typer >= 0.2x's pydantic wording replaced by 'expected X, got V'."""
    cause = e.__cause__
    param = getattr(e, "param", None)
    if param is not None and cause is not None and hasattr(cause, "errors"):
        try:
            err = cause.errors()[0]
        except Exception:  # not a pydantic error after all
            err = {}
        wants = _PYDANTIC_WANTS.get(err.get("type", ""))
        if wants is not None:
            opts = [o for o in getattr(param, "opts", []) if o.startswith("--")] or getattr(param, "opts", [])
            if getattr(param, "param_type_name", "") == "option" and opts:
                hint = f"'{opts[0]}'"
            else:
                hint = f"'{param.metavar or str(param.name).upper()}'"
            return f"invalid value for {hint}: expected {wants}, got {err.get('input')!r}"
    msg = " ".join(str(e.format_message()).split()).rstrip(".")
    msg = msg[:1].lower() + msg[1:] if msg[1:2].islower() else msg
    return msg + _suggest_command(msg, getattr(e, "ctx", None))


def _suggest_command(msg: str, ctx: Any) -> str:
    """Older typer (plain click) offers no did-you-mean for a misspelled command; add typer's own wording."""
    m = re.match(r"no such command '(.+)'$", msg)
    commands = getattr(getattr(ctx, "command", None), "commands", None)
    if not m or "Did you mean" in msg or not commands:
        return ""
    close = difflib.get_close_matches(m.group(1), list(commands))
    return f". Did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def one_line(e: Any, command: str | None = None) -> str:
    """A click exception as one line: the command it concerns, the problem, where to read the help.

    ``command`` names the sub-command when the exception carries no context (option parsing errors).
    """
    ctx = getattr(e, "ctx", None)
    path = getattr(ctx, "command_path", "") or ""
    if not path.startswith("hcrbench"):
        path = "hcrbench"
    if path == "hcrbench" and command:
        path = f"hcrbench {command}"
    sub = path.split(" ", 1)[1] if " " in path else ""
    where = f"{sub}: " if sub else ""
    helper = f" (see '{path} --help')" if is_usage(e) else ""
    return f"{where}{_message(e)}{helper}"


# ------------------------------------------------------------------------------------------------ extras

from hcrbench.extras import EXTRA_OF_MODULE, FEATURE_OF_EXTRA, import_failure, missing_extra  # noqa: E402, F401

# ------------------------------------------------------------------------------------------------ help text

_WORDS = {int: "INTEGER", float: "NUMBER", str: "TEXT", bool: ""}


def _unwrap(annotation: Any) -> Any:
    """``list[X]`` / ``X | None`` / ``Optional[X]`` -> ``X``."""
    for _ in range(4):
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        container = origin in (list, tuple, set) and bool(args)
        optional = (origin is typing.Union or origin is types.UnionType) and len(args) == 1
        if not (container or optional):
            break
        annotation = args[0]
    return annotation


def type_word(param: Any) -> str:
    """The plain word for a parameter's value: INTEGER, NUMBER, TEXT, PATH, a|b|c for choices, '' for flags."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    desc = getattr(param, "type_descriptor", None)  # typer >= 0.2x
    if desc is not None:
        if getattr(desc, "is_choice", False) and getattr(desc, "choices", None):
            return "|".join(str(getattr(c, "value", c)) for c in desc.choices)
        ann = _unwrap(desc.annotation)
        if getattr(desc, "is_path", False) or (isinstance(ann, type) and issubclass(ann, PurePath)):
            return "PATH"
        if isinstance(ann, type):
            return _WORDS.get(ann, ann.__name__.upper())
        return "VALUE"
    ptype = getattr(param, "type", None)  # click's ParamType
    choices = getattr(ptype, "choices", None)
    if choices:
        return "|".join(str(c) for c in choices)
    name = str(getattr(ptype, "name", "") or "")
    return {"integer": "INTEGER", "float": "NUMBER", "text": "TEXT", "path": "PATH", "boolean": "",
            "filename": "PATH"}.get(name, name.upper())


def _argument_usage(self: Any, ctx: Any) -> list[str]:
    name = self.metavar or self.name.upper()
    return [name if self.required else f"[{name}]"]


def _argument_type(self: Any, ctx: Any) -> str | None:
    return self._hcrbench_type or None


#: Options whose value is a comma-separated list though their help does not say "comma".
LIST_OPTIONS = frozenset({"--metrics", "--weights", "--sizes"})


def is_list_option(param: Any) -> bool:
    """Whether a click option takes a comma-separated list (repeats then accumulate)."""
    return bool(LIST_OPTIONS.intersection(getattr(param, "opts", []))) or "comma" in (getattr(param, "help", "")
                                                                                        or "").lower()


def _spelling(param: Any) -> str:
    opts = list(getattr(param, "opts", []))
    longs = [o for o in opts if o.startswith("--")]
    return "/".join(longs + [o for o in opts if not o.startswith("--")]) or str(param.name)


def _repeat_aware(option: Any) -> None:
    """Wrap one parser option's ``process``: a second value joins the first (lists) or is a usage error."""
    if getattr(option, "_hcrbench_repeats", False) or option.action != "store" or option.obj is None:
        return
    process = option.process
    listed = is_list_option(option.obj)

    def repeat_process(value: Any, state: Any) -> None:
        seen = state.opts.get(option.dest) if option.dest in state.opts else None
        if seen is None or value is None:
            return process(value, state)
        if listed:
            return process(f"{seen},{value}", state)
        raise USAGE_ERROR[0](f"option '{_spelling(option.obj)}' given twice ({seen!r}, then {value!r}); it takes "
                             "one value", ctx=state.ctx if hasattr(state, "ctx") else None)

    option.process = repeat_process
    option._hcrbench_repeats = True


def repeats(command: Any) -> None:
    """Make repeated options of ``command`` and its sub-commands add up or refuse (see the module docstring)."""
    for sub in getattr(command, "commands", {}).values():
        repeats(sub)
    make_parser = getattr(command, "make_parser", None)
    if make_parser is None or getattr(make_parser, "_hcrbench", False):
        return

    def repeat_parser(ctx: Any) -> Any:
        parser = make_parser(ctx)
        for opt in {id(o): o for o in [*parser._long_opt.values(), *parser._short_opt.values()]}.values():
            _repeat_aware(opt)
        return parser

    repeat_parser._hcrbench = True  # type: ignore[attr-defined]
    command.make_parser = repeat_parser


def humanize(command: Any, epilog: str | None = None) -> None:
    """Rewrite ``command``'s help (and its sub-commands', recursively) in place; see the module docstring.

    ``epilog`` (the exit codes) is added to every command that has none.
    """
    if epilog and not getattr(command, "epilog", None):
        command.epilog = epilog
    for param in getattr(command, "params", []):
        kind = getattr(param, "param_type_name", "")
        if kind == "option" and param.metavar is None:
            word = type_word(param)
            if word:
                param.metavar = word
            elif hasattr(param, "display_type_rich"):  # typer's own help would print <bool>; click hides it
                param.metavar = ""
        elif kind == "argument" and param.metavar is None:
            many = param.nargs != 1
            param.metavar = param.name.upper() + ("..." if many else "")
            param._hcrbench_type = type_word(param)
            param.get_usage_pieces = types.MethodType(_argument_usage, param)
            if hasattr(param, "display_type_rich"):
                param.display_type_rich = types.MethodType(_argument_type, param)
    _plain_help_option(command)
    for sub in getattr(command, "commands", {}).values():
        humanize(sub, epilog)


def _plain_help_option(command: Any) -> None:
    """``--help`` is a flag too: no ``<bool>`` after it (click builds the option lazily, so wrap the getter)."""
    getter = getattr(command, "get_help_option", None)
    if getter is None or getattr(getter, "_hcrbench", False):
        return

    def get_help_option(ctx: Any) -> Any:
        opt = getter(ctx)
        if opt is not None and opt.metavar is None and hasattr(opt, "display_type_rich"):
            opt.metavar = ""
        return opt

    get_help_option._hcrbench = True  # type: ignore[attr-defined]
    command.get_help_option = get_help_option
