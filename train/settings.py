"""Settings shared by every trainer: a config is a frozen dataclass whose fields each carry a one-line
docstring, and every trainer's command line starts the same way (`settings_parser`: GAME, ``--preset``,
``--config FILE``, ``--set KEY=VALUE``, the settings listed by ``--help``). `preset_name` picks the preset,
`command_line_overrides` reads ``--config FILE`` (JSON or TOML, `read_override_file`) and then ``--set``
(`parse_settings`, nested settings by dots, `nested_settings`), and `apply_overrides` makes the new config,
raising `ConfigError` naming a key that is unknown or a value of the wrong type."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

import tomllib


class ConfigError(ValueError):
    """A preset, override file or value that does not make a valid config."""


def settings_parser(
    prog: str,
    description: str,
    config_class: type,
    presets: Mapping[str, Any],
    *,
    example: str,
    default_preset: str = "the game's, else smoke",
) -> argparse.ArgumentParser:
    """A trainer's command line, the part every trainer shares: the game, ``--preset``, ``--config FILE`` and
    ``--set KEY=VALUE`` (``example`` shows one), with the settings of ``config_class`` listed after the
    options."""
    from rlgames.registry import list_games

    parser = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=settings_help(config_class),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", help=f"the game: {', '.join(list_games())}")
    parser.add_argument("--preset", help=f"settings to start from: {', '.join(presets)} (default: {default_preset})")
    parser.add_argument(
        "--config", metavar="FILE", help="a JSON or TOML file of settings (nested ones as tables), applied before --set"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"override one setting (nested ones by dots), e.g. --set {example} (a JSON value, "
        "strings quoted; repeatable)",
    )
    return parser


def preset_name(args: argparse.Namespace, presets: Mapping[str, Any], default: str = "smoke") -> str:
    """``--preset``, else the game's preset when there is one, else ``default``; raises `ConfigError` for
    a name that is not a preset."""
    name = args.preset or (args.game if args.game in presets else default)
    if name not in presets:
        raise ConfigError(f"unknown preset {name!r}; known: {', '.join(presets)}")
    return name


def config_from_args(args: argparse.Namespace, presets: Mapping[str, Any], default: str = "smoke") -> Any:
    """The preset `preset_name` names, with the ``--config`` file's, the ``--set`` and the
    ``--games``/``--seed`` overrides: the config of a trainer whose parser has those options."""
    preset = preset_name(args, presets, default=default)
    overrides = command_line_overrides(args, games=args.games, seed=args.seed)
    return apply_overrides(presets[preset], overrides, where=f"preset {preset}")


def command_line_overrides(args: argparse.Namespace, **given: Any) -> dict[str, Any]:
    """The settings of ``--config FILE``, then of ``--set`` (nested ones by dots), then ``given`` (the
    trainer's own options, such as ``seed``; None values are left out), as nested overrides."""
    overrides = nested_settings(parse_settings(args.set), read_override_file(args.config) if args.config else None)
    return overrides | {key: value for key, value in given.items() if value is not None}


def read_override_file(path: str | Path) -> dict[str, Any]:
    """The nested overrides of a ``.json`` or ``.toml`` file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path} is not valid {'TOML' if path.suffix == '.toml' else 'JSON'}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a table of settings, got {type(data).__name__}")
    return data


def field_docs(cls: type) -> dict[str, str]:
    """The one-line docstring under each field of the dataclass ``cls`` (read from its source, as Python
    keeps no attribute docstrings), by field name."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, after in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def nested_settings(overrides: Mapping[str, Any], into: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``--set`` overrides whose keys name nested settings with dots (``selfplay.simulations``) as the nested
    tables of a config file, merged over ``into`` (a file's tables)."""
    merged: dict[str, Any] = {
        key: dict(value) if isinstance(value, Mapping) else value for key, value in (into or {}).items()
    }
    for key, value in overrides.items():
        *path, last = key.split(".")
        table = merged
        for part in path:
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                raise ConfigError(f"setting {key!r}: {part!r} is not a table of settings")
        table[last] = value
    return merged


def settings_help(cls: type, preset: Any | None = None) -> str:
    """The ``--set`` settings of the config dataclass ``cls`` for a ``--help`` epilog: each field, its
    default (``preset``'s value where given) and its docstring."""
    defaults = preset if preset is not None else cls()
    return "\n".join(["settings (--set KEY=VALUE; a JSON value):", *_setting_lines(cls, defaults, "")])


def _setting_lines(cls: type, defaults: Any, prefix: str) -> list[str]:
    """`settings_help`'s lines of ``cls``'s fields, a nested dataclass's as ``prefix.field``."""
    lines = []
    for name, doc in field_docs(cls).items():
        value = getattr(defaults, name)
        if dataclasses.is_dataclass(value):
            lines += _setting_lines(type(value), value, f"{prefix}{name}.")
            continue
        lines.append(f"  {prefix}{name} = {json.dumps(value, default=dict)}")
        lines += textwrap.wrap(doc, 96, initial_indent="      ", subsequent_indent="      ")
    return lines


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """The overrides of ``--set KEY=VALUE`` options, each value read as JSON (a number, true or false, a
    quoted string); raises `ConfigError` on an item without ``=`` or a value that is not JSON."""
    overrides: dict[str, Any] = {}
    for item in items:
        key, equals, text = item.partition("=")
        if not equals:
            raise ConfigError(f"--set takes KEY=VALUE, got {item!r}")
        try:
            overrides[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            raise ConfigError(f"--set {item!r}: the value must be a number, true/false or a quoted string") from None
    return overrides


def apply_overrides(config: Any, overrides: Mapping[str, Any], where: str = "", prefix: str = "") -> Any:
    """A copy of the dataclass ``config`` with ``overrides`` applied (nested mappings for nested
    dataclasses; a mapping given for a mapping setting, such as a network's ``args``, is merged into it:
    ``--set network.args.final_head=1`` keeps the preset's other arguments); raises `ConfigError` on an
    unknown key or a value of the wrong type."""
    known = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    changes = {}
    for key, value in overrides.items():
        name = f"{prefix}{key}"
        if key not in known:
            raise ConfigError(
                f"unknown setting {name!r}{' in ' + where if where else ''}; "
                f"known: {', '.join(prefix + k for k in known)}"
            )
        current = known[key]
        if dataclasses.is_dataclass(current):
            if not isinstance(value, Mapping):
                raise ConfigError(f"setting {name!r} is a table of settings, got {value!r}")
            changes[key] = apply_overrides(current, value, where, f"{name}.")
        elif isinstance(current, Mapping) and isinstance(value, Mapping):
            changes[key] = {**current, **value}
        else:
            changes[key] = _coerce(name, value, current)
    try:
        return dataclasses.replace(config, **changes)
    except ConfigError as error:
        raise ConfigError(f"{error}{' (in ' + where + ')' if where else ''}") from None


def _coerce(name: str, value: Any, current: Any) -> Any:
    """``value`` converted to the type of the setting's current value, or `ConfigError`."""
    expected = type(current)
    if isinstance(current, bool) or isinstance(value, bool):
        ok = isinstance(value, bool) and isinstance(current, bool)
    elif isinstance(current, float):
        ok = isinstance(value, (int, float))
        value = float(value) if ok else value
    elif isinstance(current, tuple):
        ok = isinstance(value, (list, tuple))
        value = tuple(tuple(v) if isinstance(v, list) else v for v in value) if ok else value
    elif isinstance(current, Mapping):
        ok = isinstance(value, Mapping)
        value = dict(value) if ok else value
    else:
        ok = isinstance(value, expected)
    if not ok:
        raise ConfigError(f"setting {name!r} takes a {expected.__name__}, got {value!r}")
    return value
