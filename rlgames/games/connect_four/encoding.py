"""Connect Four's planar network input beyond the observation, ``threats``: the stones, then the cells
where a four would be completed (Allis 1988's threats: which rows hold them decides who wins the
endgame's zugzwang) and the cells playable now. The observation leaves a network to find threats itself
through its convolutions; given as planes, as KataGo gives its network liberties and ladders beside the
stones (Wu 2019), they cost one bitboard operation a position."""

from __future__ import annotations

from numba import njit

from rlgames.games.connect_four.rules import (
    MASK,
    observation,
    possible_moves,
    stones_of,
    winning_positions,
    write_plane,
)

THREAT_PLANES = 5


@njit(cache=True)
def threats(s, player, out) -> None:
    """out: float32[5, 6, 7]: the observation's planes (``player``'s stones, the opponent's), then the empty
    cells that would complete a four for ``player`` and for the opponent, playable now or later, then the
    cells playable now."""
    observation(s, player, out[:2])
    mine = stones_of(s, player)
    write_plane(winning_positions(mine, s[MASK]), out[2])
    write_plane(winning_positions(mine ^ s[MASK], s[MASK]), out[3])
    write_plane(possible_moves(s[MASK]), out[4])
