"""A human against an agent in the terminal: `rlgames play GAME --agent SPEC`.

The board is drawn before every move; the human types moves in the game's notation. Illegal or
malformed input is asked for again with the reason; ``undo`` takes back the human's last move (and the
agent's reply), ``moves`` lists the legal moves, ``quit`` (or end of input) stops. Chance outcomes are
drawn from a seeded generator and shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rlgames.agents.base import Agent
from rlgames.game import IllegalActionError, Outcome, State

HELP = "type a move, or: undo (take back your last move), moves (list legal moves), quit"


def outcome_text(outcome: Outcome) -> str:
    """How a game ended, in one line: who won, the result and the termination, e.g. ``game over:
    player 0 wins, 1-0, normal``, ``game over: player 1 wins, 0-1 (2 points), normal`` or ``game
    over: draw, 1/2-1/2, repetition`` (`rlgames play`, `rlgames show` and the envs' rendering)."""
    who = "draw" if outcome.winner is None else f"player {outcome.winner} wins"
    return f"game over: {who}, {outcome.result}, {outcome.termination}"


@dataclass
class PlaySession:
    """One game between a human at ``seat`` and ``agent``, driven through ``read`` and ``write``."""

    agent: Agent
    seat: int
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def run(self, state: State) -> State | None:
        """Plays from ``state`` to the end; returns the final state, or None if the human quit."""
        undo_stack: list[State] = []  # the positions before each of the human's moves
        self.write(f"You play player {self.seat}. {HELP}.")
        while not state.is_terminal():
            if state.is_chance_node():
                state = self._chance(state)
            elif state.current_player() != self.seat:
                state = self._agent_move(state)
            else:
                self.write(f"\n{state}")
                successor = self._human_move(state, undo_stack)
                if successor is None:
                    return None
                state = successor
        self.write(f"\n{state}\n{self._result(state)}")
        return state

    def _chance(self, state: State) -> State:
        outcome = state.sample_chance_outcome(self.rng)
        self.write(f"chance: {state.action_to_string(outcome)}")
        return state.apply(outcome)

    def _agent_move(self, state: State) -> State:
        result = self.agent.search(state)
        stats = result.stats
        most = state.game.info.utility[1]  # where a game is worth more than 1, the value in points too
        points = f" = {result.value * most:+.2f} points" if most > 1 else ""
        self.write(
            f"agent plays {state.action_to_string(result.action)} "
            f"(value {result.value:+.2f}{points}, {stats.nodes} nodes, {stats.time_s:.2f} s)"
        )
        return state.apply(result.action)

    def _human_move(self, state: State, undo_stack: list[State]) -> State | None:
        """The state after the human's move; the position before an undone move; None to quit."""
        while True:
            try:
                text = self.read("your move: ").strip()
            except EOFError:
                return None
            if text in ("quit", "exit", "q"):
                return None
            if text == "undo":
                if not undo_stack:
                    self.write("nothing to undo yet")
                    continue
                return undo_stack.pop()
            if text in ("moves", "help", "?", ""):
                self.write(f"legal moves: {self._legal_moves(state)}; {HELP}")
                continue
            try:
                successor = state.apply(state.string_to_action(text))
            except IllegalActionError as error:  # names the move and the legal ones: ask again
                self.write(str(error))
                continue
            except ValueError as error:  # malformed: ask again
                self.write(f"{error}\nlegal moves: {self._legal_moves(state)}")
                continue
            undo_stack.append(state)
            return successor

    @staticmethod
    def _legal_moves(state: State) -> str:
        return ", ".join(state.action_to_string(a) for a in state.legal_actions())

    def _result(self, state: State) -> str:
        """The game's outcome, and what it means for the human: ``You win.``, ``You lose 2 points.``..."""
        outcome = state.outcome()
        assert outcome is not None  # the state is terminal
        mine = outcome.returns[self.seat]
        points = "" if abs(mine) == 1 else f" {abs(mine):g} points"
        verdict = f"You win{points}." if mine > 0 else f"You lose{points}." if mine < 0 else "Draw."
        return f"{outcome_text(outcome)}. {verdict}"
