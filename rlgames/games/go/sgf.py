"""Go games as SGF (FF[4]), the format every go program and server reads: `to_sgf` writes one,
`state_from_sgf` reads one's main line.

The subset written and read: the root's ``SZ`` (board size), ``KM`` (komi), ``HA`` (handicap),
``AB``/``AW`` (set-up stones), ``PL`` (who moves first), ``PB``/``PW`` (players), ``RE`` (result:
``B+3.5``, ``W+R``, ``0`` for a draw), and the moves ``B[dd]``/``W[dd]``, with ``B[]`` (or ``tt`` on
boards up to 19) for a pass. SGF's coordinates are two letters, column then row, ``a`` the left column
and the top row. Other properties are read past; variations other than the main line are skipped.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import cast

from rlgames.game import Outcome
from rlgames.games.go.game import Go, GoState, handicap_points

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_PROPERTY = re.compile(r"\s*([A-Z]+)((?:\s*\[(?:\\.|[^\]\\])*\])+)", re.S)
_VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.S)


def sgf_point(point: int, size: int) -> str:
    """SGF's two letters for ``point`` (``row * size + col``, row 0 at the bottom)."""
    return _LETTERS[point % size] + _LETTERS[size - 1 - point // size]


def parse_sgf_point(text: str, size: int) -> int | None:
    """The point of SGF's ``text``, or None for a pass (``""``, or ``tt`` on a board up to 19)."""
    if text == "" or (text == "tt" and size <= 19):
        return None
    if len(text) != 2 or any(c not in _LETTERS[:size] for c in text):
        raise ValueError(f"go: SGF point {text!r} is not on a {size}x{size} board")
    return (size - 1 - _LETTERS.index(text[1])) * size + _LETTERS.index(text[0])


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _number(value: float) -> str:
    return f"{value:g}"


def sgf_result(state: GoState, outcome: Outcome) -> str:
    """SGF's ``RE`` for a game that ended in ``state``: the score where the board decided it
    (``B+3.5``), ``0`` for a draw, else the winner with ``R`` (resignation, an adjudication)."""
    if outcome.winner is None:
        return "0"
    colour = "BW"[outcome.winner]
    if state.is_terminal() and state.termination() in ("passes", "length limit"):
        return f"{colour}+{_number(abs(state.score()))}"
    return f"{colour}+R"


def to_sgf(
    game: Go,
    actions: Sequence[int],
    *,
    players: tuple[str, str] = ("Black", "White"),
    outcome: Outcome | None = None,
    event: str = "rlgames",
    round: int | None = None,
) -> str:
    """The game of ``actions`` from ``game``'s start as SGF, ``players`` as black and white."""
    n = game.board_size
    state = cast(GoState, game.new_initial_state())
    root = [
        "FF[4]GM[1]CA[UTF-8]AP[rlgames]RU[Tromp-Taylor]",
        f"SZ[{n}]KM[{_number(game.komi)}]",
        f"PB[{_escape(players[0])}]PW[{_escape(players[1])}]EV[{_escape(event)}]",
        f"DT[{datetime.date.today().isoformat()}]",
    ]
    if round is not None:
        root.append(f"RO[{round}]")
    if game.handicap >= 2:
        stones = "".join(f"[{sgf_point(p, n)}]" for p in handicap_points(game.handicap, n))
        root.append(f"HA[{game.handicap}]AB{stones}")
    moves = []
    for action in actions:
        colour = "BW"[state.current_player()]
        moves.append(f";{colour}[{'' if action == n * n else sgf_point(action, n)}]")
        state = state.apply(action)
    if outcome is not None:
        root.append(f"RE[{sgf_result(state, outcome)}]")
    lines = [f"(;{''.join(root)}"]
    lines += ["".join(moves[i : i + 10]) for i in range(0, len(moves), 10)]
    return "\n".join(lines) + ")\n"


def main_line(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the main line of the first game tree in ``text``, each ``{property: [values]}``."""
    start = text.find("(;")
    if start < 0:
        raise ValueError("go: not an SGF game: no '(;' where a game tree starts")
    nodes: list[dict[str, list[str]]] = []
    i, depth = start + 1, 1
    while i < len(text) and depth > 0:
        c = text[i]
        if c == ";":
            node: dict[str, list[str]] = {}
            i += 1
            while (match := _PROPERTY.match(text, i)) is not None:
                values = (v.replace("\\]", "]") for v in _VALUE.findall(match.group(2)))
                node.setdefault(match.group(1), []).extend(values)
                i = match.end()
            nodes.append(node)
        elif c == "(":  # the first variation is the main line; skip its siblings when it ends
            depth += 1
            i += 1
        elif c == ")":
            depth -= 1
            i += 1
            if depth >= 1:
                i = _skip_variations(text, i)
                depth -= 1
        elif c == "[":
            raise ValueError(f"go: SGF value outside a property at character {i}")
        else:
            i += 1
    return nodes


def _skip_variations(text: str, i: int) -> int:
    """The index just past the variations that follow the main line at ``i`` and the tree closing them."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "[":
            value = _VALUE.match(text, i)
            i = value.end() if value else len(text)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i + 1
            depth -= 1
        i += 1
    return i


def _root_number(root: dict[str, list[str]], name: str, default: float, cast: type) -> float:
    values = root.get(name)
    if not values:
        return default
    try:
        return cast(float(values[0])) if cast is int else float(values[0])
    except ValueError:
        raise ValueError(f"go: SGF property {name}[{values[0]}] is not a number") from None


def _setup_points(values: list[str], size: int) -> list[int]:
    points = [parse_sgf_point(v, size) for v in values]
    if None in points:
        raise ValueError("go: an SGF set-up stone (AB, AW) has no point")
    return [p for p in points if p is not None]


def state_from_sgf(text: str, **params) -> GoState:
    """The position at the end of the SGF game's main line, in a `Go` of its size, komi and handicap
    (``params`` add the game's other parameters, ``max_game_length``). Handicap stones where OpenSpiel
    puts them make a handicap game; other set-up stones (``AB``, ``AW``) a position with ``PL`` to move.
    Raises a one-line `ValueError` naming what it cannot read or play."""
    nodes = main_line(text)
    if not nodes:
        raise ValueError("go: the SGF game has no nodes")
    root = nodes[0]
    size = int(_root_number(root, "SZ", 19, int))
    komi = _root_number(root, "KM", 0.0, float)
    handicap = int(_root_number(root, "HA", 0, int))
    black, white = _setup_points(root.get("AB", []), size), _setup_points(root.get("AW", []), size)
    placed = handicap >= 2 and not white and sorted(black) == sorted(handicap_points(handicap, size))
    game = Go(board_size=size, komi=komi, handicap=handicap if placed else 0, **params)
    if placed or not (black or white):
        state = cast(GoState, game.new_initial_state())
    else:
        first = 1 if root.get("PL", ["B"])[0].upper().startswith("W") or handicap >= 2 else 0
        state = GoState(game, game.compact_from_stones(black, white, player=first))
    if "B" in root or "W" in root:
        raise ValueError("go: the SGF root node holds a move; rlgames reads moves from the nodes after it")
    for number, node in enumerate(nodes[1:], start=1):
        for colour in ("B", "W"):
            if colour not in node:
                continue
            player = "BW".index(colour)
            if state.current_player() != player:
                raise ValueError(f"go: SGF move {number} is {colour}'s, but {'BW'[1 - player]} is to move")
            point = parse_sgf_point(node[colour][0], size)
            state = state.apply(size * size if point is None else point)
    return state
