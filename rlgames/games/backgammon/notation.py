"""Backgammon in writing: OpenSpiel's action strings, moves as people write them, the ASCII board and
gnubg's Position ID and Match ID. Plain Python over the compact state (none of it is on a hot path).

Point numbers here are a player's own (1..24, the 1-point the last before bearing off; 25 the bar, 0
off), as in OpenSpiel's strings: ``24/18 13/10`` is the same move for either player, each counting
from its own side. A *board* is a pair of int arrays ``[player 0's, player 1's]``, each of 26 entries
by the player's own point: index ``n - 1`` for point ``n``, 24 the bar, 25 borne off (each sums to 15).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from dataclasses import dataclass

import numpy as np

from rlgames.games.backgammon.moves import BAR, LOW_FIRST, NO_MOVE
from rlgames.games.backgammon.rules import OUTCOME_DICE, perspective, view
from rlgames.games.backgammon.slots import (
    NUM_CHECKERS,
    NUM_POINTS,
    pack_state,
)

GLYPHS = "xo"  # player 0 (OpenSpiel's X), player 1 (O)
OFF, BAR_POINT = 0, 25
_OPENSPIEL_PLACES = {25: "Bar", -2: "Off", -1: "Pass"}  # OpenSpiel's human-readable places
_HOP = re.compile(r"(bar|\d{1,2})((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?", re.IGNORECASE)


def point_of(position: int, player: int) -> int:
    """``player``'s point number of position ``position`` (0..23)."""
    return 24 - position if player == 0 else position + 1


def position_of(point: int, player: int) -> int:
    """The position (0..23) of ``player``'s point ``point`` (1..24)."""
    return 24 - point if player == 0 else point - 1


def board_of(s: tuple) -> np.ndarray:
    """int64[2, 26]: both players' checkers by their own points (see the module docstring)."""
    board = np.empty((2, 26), dtype=np.int64)
    view(s, board)  # the perspective player's row first
    return board[::-1] if perspective(s) else board


def pack_board(board: np.ndarray, code: int, meta: int) -> tuple:
    """The compact state of ``board`` with player code ``code`` and the `META` fields (bars aside)."""
    counts = np.zeros((2, NUM_POINTS), dtype=np.int64)
    for player in (0, 1):
        for point in range(1, 25):
            counts[player, position_of(point, player)] = board[player, point - 1]
    return pack_state(code, 0, (counts[0], counts[1]), (int(board[0, 24]), int(board[1, 24])), meta)


# --- OpenSpiel's strings -----------------------------------------------------------------------------
def chance_string(outcome: int, opening: bool) -> str:
    """OpenSpiel's string of a chance outcome (the opening roll also says who starts)."""
    first, second = OUTCOME_DICE[outcome]
    if opening:
        return f"chance outcome {outcome} {'XO'[outcome % 2]} starts, (roll: {first}{second})"
    return f"chance outcome {outcome} (roll: {first}{second})"


def _place(place: int) -> str:
    return _OPENSPIEL_PLACES.get(place, str(place))


def action_string(action: int, player: int, low: int, high: int, board: np.ndarray) -> str:
    """OpenSpiel's string of decision ``action`` of ``player`` with dice ``low``, ``high`` on ``board``.

    Its quirks, kept: the action number leads (``"11 - 24/22 13/8"``), as two actions can name the
    same moves in the two orders of the dice; hits (``*``) are judged on the board before the action,
    both moves alike; a pass is ``"Pass"`` alone; moves run highest start first, a checker moving
    twice is written ``24/18/13``, the same move twice ``8/5(2)``.
    """
    low_first = action >= LOW_FIRST
    code = action - LOW_FIRST if low_first else action
    dice = (low, high) if low_first else (high, low)
    starts, ends, hits = [], [], []
    for digit, die in zip((code % 26, code // 26), dice):
        start = (
            BAR_POINT if digit == BAR else point_of(digit, player) if digit != NO_MOVE else (25 if player == 0 else 0)
        )  # OpenSpiel's start of a pass
        end = -1 if digit == NO_MOVE else start - die if start > die else -2  # -1: a pass, -2: off
        starts.append(start)
        ends.append(end)
        hits.append(bool(end > 0 and board[1 - player, 24 - end] == 1))
    return _openspiel_text(action, starts, ends, hits, passes=(code % 26 == NO_MOVE, code // 26 == NO_MOVE))


def _openspiel_text(
    action: int, starts: list[int], ends: list[int], hits: list[bool], passes: tuple[bool, bool]
) -> str:
    (s0, s1), (e0, e1), (h0, h1) = starts, ends, hits
    star0, star1 = "*" * h0, "*" * h1
    double_hit = h0 and h1 and e0 == e1
    if s0 == s1 and e0 == e1:
        return "Pass" if passes[1] else f"{action} - {_place(s0)}/{_place(e0)}{star0}(2)"
    if (s0 < s1 or (s0 == s1 and e0 < e1) or passes[0]) and not passes[1]:  # the second move first
        (s0, s1), (e0, e1), (star0, star1), passes = (s1, s0), (e1, e0), (star1, star0), passes[::-1]
    if e0 == s1:  # one checker moves twice
        return f"{action} - {_place(s0)}/{_place(e0)}{star0}/{_place(e1)}{star1}"
    second = _place(e1) if passes[1] else f"{_place(s1)}/{_place(e1)}"
    return f"{action} - {_place(s0)}/{_place(e0)}{star0} {second}{'' if double_hit else star1}"


# --- moves as people write them ------------------------------------------------------------------------
def parse_hops(text: str) -> list[tuple[int, int]]:
    """The checker moves of ``text`` (``"24/18 13/10"``, ``"bar/22*/16"``, ``"6/off"``, ``"8/5(2)"``;
    ``*`` and ``Pass`` are ignored) as ``(from, to)`` points: 25 the bar, 0 off. Raises `ValueError`."""
    hops = []
    for token in text.replace(",", " ").split():
        if token.lower() == "pass":
            continue
        match = _HOP.fullmatch(token)
        if not match:
            raise ValueError(f"backgammon: cannot read {token!r} as a move like 24/18, bar/20*, 6/off or 8/5(2)")
        places = [match[1]] + match[2].replace("*", "").split("/")[1:]
        points = [BAR_POINT if p.lower() == "bar" else OFF if p.lower() == "off" else int(p) for p in places]
        for a, b in itertools.pairwise(points):
            if not (0 < a <= 25 and 0 <= b < a):
                raise ValueError(f"backgammon: {token!r} does not move forward from a point (25 is the bar, 0 off)")
        hops += list(itertools.pairwise(points)) * int(match[3] or 1)
    if not hops:
        raise ValueError(f"backgammon: no move in {text!r}")
    return hops


def play_hops(board: np.ndarray, player: int, hops: list[tuple[int, int]]) -> np.ndarray:
    """``board`` after ``player`` moves a checker along each hop, hitting lone opposing checkers; the
    dice are not checked. Raises `ValueError` where there is no checker to move."""
    board = board.copy()
    mine, theirs = board[player], board[1 - player]
    for start, end in hops:
        if not mine[start - 1]:
            raise ValueError(f"backgammon: no checker of {GLYPHS[player]} on {_point_name(start)}")
        mine[start - 1] -= 1
        if end == OFF:
            mine[25] += 1
            continue
        mine[end - 1] += 1
        if theirs[24 - end] == 1:  # their point 25 - end
            theirs[24 - end], theirs[24] = 0, theirs[24] + 1
    return board


def _point_name(point: int) -> str:
    return "the bar" if point == BAR_POINT else f"point {point}"


def roll_outcome(text: str, opening: bool) -> int:
    """The chance outcome of a roll written ``"52"``, ``"5-2"``, ``"5 2"`` or ``"roll 52"`` (first die,
    second die, as OpenSpiel writes its outcomes). Raises `ValueError`."""
    match = re.fullmatch(r"(?:roll:?\s*)?\(?([1-6])[\s,-]*([1-6])\)?", text.strip().lower())
    if not match:
        raise ValueError(
            f"backgammon: cannot read roll {text!r}; expected two dice like 52, 5-2 or OpenSpiel's 'chance outcome ...'"
        )
    dice = (int(match[1]), int(match[2]))
    if opening and dice[0] == dice[1]:
        raise ValueError(f"backgammon: the opening roll cannot be a double ({text!r})")
    return [tuple(pair) for pair in OUTCOME_DICE.tolist()].index(dice)


# --- the board -------------------------------------------------------------------------------------------
def pips(board: np.ndarray, player: int) -> int:
    """``player``'s pip count: what it must move to bear every checker off."""
    return int(sum((i + 1) * n for i, n in enumerate(board[player, :25])))


def board_text(board: np.ndarray, viewer: int) -> str:
    """The board drawn for ``viewer``, with its points: 13-24 on top from the left, 12-1 below, its home
    board bottom right; ``x`` and ``o`` are players 0 and 1; the bar holds ``viewer``'s opponent's
    checkers on top and ``viewer``'s below."""
    other = 1 - viewer

    def stack(point: int) -> tuple[str, int]:  # the glyph and count on the viewer's point
        if board[viewer, point - 1]:
            return GLYPHS[viewer], int(board[viewer, point - 1])
        return GLYPHS[other], int(board[other, 24 - point])

    def cell(glyph: str, n: int, level: int) -> str:
        if level == 4 and n > 5:
            return f"{n:>2} "
        return f" {glyph} " if n > level else "   "

    def row(points: range, bar_glyph: str, bar_n: int, level: int) -> str:
        cells = [cell(*stack(p), level) for p in points]
        return f"|{''.join(cells[:6])}|{cell(bar_glyph, bar_n, level)}|{''.join(cells[6:])}|"

    top, bottom = range(13, 25), range(12, 0, -1)
    edge = "+" + "-" * 18 + "+---+" + "-" * 18 + "+"
    lines = [" " + "".join(f"{p:>3}" for p in top[:6]) + "     " + "".join(f"{p:>3}" for p in top[6:]), edge]
    lines += [row(top, GLYPHS[other], int(board[other, 24]), level) for level in range(5)]
    lines.append("|" + " " * 18 + "|BAR|" + " " * 18 + "|")
    lines += [row(bottom, GLYPHS[viewer], int(board[viewer, 24]), level) for level in range(4, -1, -1)]
    lines += [edge, " " + "".join(f"{p:>3}" for p in bottom[:6]) + "     " + "".join(f"{p:>3}" for p in bottom[6:])]
    for player in (0, 1):
        lines.append(
            f"{GLYPHS[player]} (player {player}): {board[player, 24]} on the bar, {board[player, 25]} off, "
            f"pip count {pips(board, player)}"
        )
    return "\n".join(lines)


# --- gnubg's Position ID ---------------------------------------------------------------------------------
def position_id(board: np.ndarray, on_roll: int) -> str:
    """gnubg's Position ID: for the opponent of ``on_roll``, then ``on_roll``, each point 1..24 of its own
    then its bar, as many 1 bits as checkers followed by a 0; 80 bits, least significant bit of each
    byte first, in base64 without padding (14 characters)."""
    bits = []
    for player in (1 - on_roll, on_roll):
        for n in board[player, :25]:
            bits += [1] * int(n) + [0]
    bits += [0] * (80 - len(bits))
    key = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(key).decode()[:14]


def parse_position_id(text: str, on_roll: int) -> np.ndarray:
    """The board of a Position ID whose player on roll is ``on_roll``. Raises `ValueError` (one line)."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9+/]{14}", text.strip()):
        raise ValueError(f"backgammon: bad Position ID {text!r}: expected 14 base64 characters like 4HPwATDgc/ABMA")
    try:
        key = base64.b64decode(text.strip() + "==", validate=True)
    except binascii.Error:
        raise ValueError(f"backgammon: bad Position ID {text!r}: not base64") from None
    bits = [key[i] >> j & 1 for i in range(10) for j in range(8)]
    board = np.zeros((2, 26), dtype=np.int64)
    i = 0
    for player in (1 - on_roll, on_roll):
        for place in range(25):
            while i < 80 and bits[i]:
                board[player, place] += 1
                i += 1
            if i >= 80:
                raise ValueError(f"backgammon: bad Position ID {text!r}: its bits run out")
            i += 1
        if board[player].sum() > NUM_CHECKERS:
            raise ValueError(f"backgammon: bad Position ID {text!r}: {GLYPHS[player]} has more than 15 checkers")
        board[player, 25] = NUM_CHECKERS - board[player].sum()
    if any(bits[i:]):
        raise ValueError(f"backgammon: bad Position ID {text!r}: bits left over after both players")
    clash = [p for p in range(1, 25) if board[0, p - 1] and board[1, 24 - p]]
    if clash:
        raise ValueError(f"backgammon: bad Position ID {text!r}: both players on player 0's point {clash[0]}")
    if (board[:, 25] == NUM_CHECKERS).any():
        raise ValueError(f"backgammon: Position ID {text!r} is a finished game: a player has no checker left")
    return board


# --- gnubg's Match ID ------------------------------------------------------------------------------------
# The match key's fields in stream order with their widths in bits (gnubg's manual, "A technical description
# of the Match ID", and matchid.c's MatchID): each written least significant bit first, bit k of the stream
# bit k % 8 of byte k // 8; 9 bytes, 12 base64 characters. The 67th bit, newer gnubg's, is set when the
# Jacoby rule is off (the manual's 66 bits leave it 0); the last 5 are always 0.
_MATCH_KEY = (
    ("cube", 4),
    ("cube_owner", 2),
    ("on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("double_offered", 1),
    ("resigned", 2),
    ("die_1", 3),
    ("die_2", 3),
    ("match_length", 15),
    ("score_0", 15),
    ("score_1", 15),
    ("no_jacoby", 1),
)
_MATCH_KEY_BITS = sum(width for _, width in _MATCH_KEY)  # 67 of the key's 72
_CENTERED = 3  # the cube owner's bits when nobody owns the cube
_MAX_FIELD = (1 << 15) - 1  # match length and scores


@dataclass(frozen=True)
class MatchId:
    """What gnubg's Match ID says: the cube, whose turn, the dice, the match and its score (players are
    gnubg's 0 and 1, the same as a Position ID's)."""

    cube_value: int
    """The cube's value, a power of 2 from 1 to 2**15."""
    cube_owner: int | None
    """The player who owns the cube, None when it is in the middle."""
    on_roll: int
    """The player on roll or who has rolled (the dice's owner)."""
    crawford: bool
    """Whether this game is the Crawford game (never in a money game)."""
    game_state: int
    """gnubg's game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube."""
    turn: int
    """The player who has to decide now (the opponent of ``on_roll`` after a double or a resignation)."""
    double_offered: bool
    """Whether a double is being offered."""
    resigned: int
    """The resignation offered: 0 none, 1 single game, 2 gammon, 3 backgammon."""
    dice: tuple[int, int]
    """The dice rolled, each 1..6, or (0, 0) before the roll (gnubg writes the larger die first)."""
    match_length: int
    """The match's length in points, 0 for a money game."""
    score: tuple[int, int]
    """Player 0's and player 1's points."""
    jacoby: bool = True
    """Whether the Jacoby rule is in use: newer gnubg's 67th bit, 1 when it is off."""


def _match_problem(m: MatchId) -> str | None:
    """Why ``m`` cannot be a Match ID, or None: each field's range and gnubg's own checks (a score within the
    match's length, no Crawford game in money play)."""

    def whole(x: object, low: int, high: int) -> bool:
        return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and low <= int(x) <= high

    if not whole(m.cube_value, 1, 1 << 15) or m.cube_value & (m.cube_value - 1):
        return f"cube value {m.cube_value!r} is not a power of 2 from 1 to 32768"
    if m.cube_owner is not None and not whole(m.cube_owner, 0, 1):
        return f"cube owner {m.cube_owner!r} is not 0, 1 or None"
    for name in ("on_roll", "turn"):
        if not whole(getattr(m, name), 0, 1):
            return f"{name} {getattr(m, name)!r} is not 0 or 1"
    for name in ("crawford", "double_offered", "jacoby"):
        if not isinstance(getattr(m, name), (bool, np.bool_)):
            return f"{name} {getattr(m, name)!r} is not a bool"
    if not whole(m.game_state, 0, 4):
        return f"game state {m.game_state!r} is not 0..4"
    if not whole(m.resigned, 0, 3):
        return f"resignation {m.resigned!r} is not 0..3"
    if not (isinstance(m.dice, tuple) and len(m.dice) == 2 and all(whole(d, 0, 6) for d in m.dice)) or (
        0 in m.dice and m.dice != (0, 0)
    ):
        return f"dice {m.dice!r} are neither two of 1..6 nor (0, 0)"
    if not whole(m.match_length, 0, _MAX_FIELD):
        return f"match length {m.match_length!r} is not 0..{_MAX_FIELD}"
    top = m.match_length or _MAX_FIELD
    if not (isinstance(m.score, tuple) and len(m.score) == 2 and all(whole(s, 0, top) for s in m.score)):
        return f"score {m.score!r} is not two points of 0..{top}"
    if m.crawford and not m.match_length:
        return "a money game has no Crawford game"
    return None


def match_id(m: MatchId) -> str:
    """gnubg's Match ID of ``m``: 12 base64 characters. Raises `ValueError` (one line) if a field is out of
    range."""
    problem = _match_problem(m)
    if problem:
        raise ValueError(f"backgammon: cannot write a Match ID: {problem}")
    values = {
        "cube": int(m.cube_value).bit_length() - 1,
        "cube_owner": _CENTERED if m.cube_owner is None else int(m.cube_owner),
        "on_roll": int(m.on_roll),
        "crawford": int(m.crawford),
        "game_state": int(m.game_state),
        "turn": int(m.turn),
        "double_offered": int(m.double_offered),
        "resigned": int(m.resigned),
        "die_1": int(m.dice[0]),
        "die_2": int(m.dice[1]),
        "match_length": int(m.match_length),
        "score_0": int(m.score[0]),
        "score_1": int(m.score[1]),
        "no_jacoby": int(not m.jacoby),
    }
    key, at = 0, 0
    for name, width in _MATCH_KEY:
        key |= values[name] << at
        at += width
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def parse_match_id(text: str) -> MatchId:
    """The match state of gnubg's Match ID ``text``. Raises `ValueError` (one line) on a bad ID."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9+/]{12}", text.strip()):
        raise ValueError(f"backgammon: bad Match ID {text!r}: expected 12 base64 characters like QYkqASAAIAAA")
    try:
        key = int.from_bytes(base64.b64decode(text.strip(), validate=True), "little")
    except binascii.Error:
        raise ValueError(f"backgammon: bad Match ID {text!r}: not base64") from None
    if key >> _MATCH_KEY_BITS:
        raise ValueError(f"backgammon: bad Match ID {text!r}: bits set past the {_MATCH_KEY_BITS}th")
    values, at = {}, 0
    for name, width in _MATCH_KEY:
        values[name] = key >> at & ((1 << width) - 1)
        at += width
    if values["cube_owner"] == 2:
        raise ValueError(f"backgammon: bad Match ID {text!r}: cube owner bits 10 (neither player nor centered)")
    m = MatchId(
        cube_value=1 << values["cube"],
        cube_owner=None if values["cube_owner"] == _CENTERED else values["cube_owner"],
        on_roll=values["on_roll"],
        crawford=bool(values["crawford"]),
        game_state=values["game_state"],
        turn=values["turn"],
        double_offered=bool(values["double_offered"]),
        resigned=values["resigned"],
        dice=(values["die_1"], values["die_2"]),
        match_length=values["match_length"],
        score=(values["score_0"], values["score_1"]),
        jacoby=not values["no_jacoby"],
    )
    problem = _match_problem(m)
    if problem:
        raise ValueError(f"backgammon: bad Match ID {text!r}: {problem}")
    return m
