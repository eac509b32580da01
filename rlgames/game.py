"""The game API: a `Game` describes the rules, a `State` is one immutable position.

Every game has two faces (see ``shared/design/fast-core.md``):

* **Kernels** -- numba-compiled functions over a *compact state*, a tuple of int64 of fixed length
  (bitboards, counters). Search, playouts and MCTS run entirely on kernels; they never touch Python
  objects. The kernels of a game are bundled in a `GameKernels` record.
* **The `State` facade** -- the public, immutable Python API used by envs, agents, tests and the CLI.
  It holds one compact state and calls the kernels.

Conventions (shared by every game, search and evaluator in rlgames):

* Players are 0 and 1. `State.current_player` may also be `CHANCE` or `TERMINAL`, as in OpenSpiel.
* Actions are ints in ``[0, num_actions)``; a legal mask has 1 for a legal action. At a chance node the
  legal actions are the chance outcomes.
* Returns are zero-sum, one value per player, in the game's utility range ``GameInfo.utility``
  (``(-1, 1)`` for most games; backgammon's gammons make it ``(-3, 3)``). Values -- of evaluators,
  searches and networks -- are always in [-1, 1] from the side to move: a return becomes a value
  divided by the utility's maximum (`GameInfo.value`, and `GameKernels.max_return` in compiled code).
* A game whose rules look at earlier positions (``GameInfo.history_dependent``: repetition draws,
  superko) gives a ``repetition`` kernel; its states (`HistoryState`) keep the keys of the positions
  before them, and the searches keep the keys along their path.
* Observations are float32 planes with values in [0, 1], **from the point of view of the side to move**
  by default (see `State.observation`).

Compact-state slots fixed for every game, so that the facade and the search read them directly:

* ``s[0]`` -- the player code: 0, 1, `CHANCE` or `TERMINAL`;
* ``s[1]`` -- player 0's return once the state is terminal (0 before), an int in the utility range;
* ``s[2:]`` -- the game's own fields.
"""

from __future__ import annotations

import abc
import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numba
import numpy as np

from rlgames.jit.entry import compiled_entry

if TYPE_CHECKING:
    from typing_extensions import Self

CHANCE = -1
"""Player code of a chance node (OpenSpiel's ``kChancePlayerId``)."""
TERMINAL = -4
"""Player code of a terminal state (OpenSpiel's ``kTerminalPlayerId``)."""
ILLEGAL = -5
"""Player code of the state an ``apply`` kernel returns for an action that is not legal."""

PLAYER = 0
"""Slot of the player code in a compact state."""
RETURN = 1
"""Slot of player 0's final return in a compact state."""

NO_REPETITION, REPETITION_DRAW, REPETITION_ILLEGAL = 0, 1, 2
"""What a game's ``repetition`` kernel says of a position given the positions before it: nothing, the
game is drawn there (threefold repetition, a repeated position in search), or the move that reached
it is illegal (superko)."""

CompactState = tuple  # tuple[int, ...]: a fixed-length tuple of int64 values

_new_object = object.__new__


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


@dataclass(frozen=True)
class GameInfo:
    """What a game is, declared without compiling anything (OpenSpiel's ``GameType`` and ``GameInfo``
    in one): `rlgames games` lists it, and `Game` takes its sizes from it.

    * ``num_actions`` -- actions are ints in ``[0, num_actions)`` (chance outcomes included);
    * ``observation_shape`` -- the float32 planes of `State.observation`;
    * ``max_game_length`` -- an upper bound on the actions of one game (chance outcomes included);
    * ``has_chance`` -- whether the game has chance nodes;
    * ``utility`` -- ``(min, max)`` of a player's return (zero-sum: player 1's is minus player 0's);
    * ``history_dependent`` -- whether the rules look at earlier positions (repetition draws, superko),
      so that a position alone does not decide its legal moves or outcome;
    * ``repetition_illegal`` -- whether a move into an earlier position can be illegal, so that a history
      state's legal moves are each judged (a move made and the repetition kernel run); else a repetition
      only ever ends the game (chess's draws), and the legal moves are the rules' alone.
    """

    name: str
    num_actions: int
    observation_shape: tuple[int, ...]
    max_game_length: int
    has_chance: bool = False
    utility: tuple[int, int] = (-1, 1)
    history_dependent: bool = False
    repetition_illegal: bool = False

    def __post_init__(self) -> None:
        low, high = self.utility
        if not (isinstance(high, int) and high >= 1 and low == -high):
            raise ValueError(f"{self.name}: utility must be (-m, m) for an int m >= 1 (zero-sum), got {self.utility}")

    def value(self, ret: float) -> float:
        """A return scaled into a value in [-1, 1]: the one place where returns meet values (search
        scores, network targets)."""
        return ret / self.utility[1]


@numba.njit(cache=True, inline="always")
def record_move(moves, ply: int, player: int, action: int) -> None:
    """Writes ply ``ply`` of a playout into ``moves`` (int64, or None to record nothing) while it fits:
    ``2 * action + player`` for a decision by ``player`` (0 or 1), -1 for a chance outcome (``player``
    is `CHANCE`). A ``playout`` kernel records its moves with it (MCTS's RAVE reads them)."""
    if moves is not None and ply < moves.shape[0]:
        moves[ply] = 2 * action + player if player >= 0 else -1


@numba.njit(cache=True)
def no_chance_outcomes(s, actions, probs) -> int:
    """The chance kernel of a game without chance nodes: no outcomes."""
    return 0


@numba.njit(cache=True)
def no_tactical_actions(s, out) -> int:
    """The default: the game names no tactical moves."""
    return 0


@numba.njit(cache=True)
def no_repetition(s, keys, n) -> int:
    """The default: earlier positions never matter."""
    return NO_REPETITION


@numba.njit(cache=True)
def no_null_move(s):
    """The default: the game has no null move (the search never tries one)."""
    return s


@numba.njit(cache=True)
def no_move_score(s, action) -> float:
    """The default: no move is ordered before the others by the game."""
    return 0.0


@numba.njit(cache=True)
def side_to_move_observer(s) -> int:
    """The default observer: the side to move; player 0 at a chance node or a terminal state."""
    return max(s[PLAYER], 0)


@numba.njit(cache=True)
def unsettled(s):
    """The default settle: every state is searched as itself."""
    return s


@numba.njit(cache=True)
def full_stakes(s) -> float:
    """The default stakes: every state is played for the whole of the game's returns."""
    return 1.0


class GameKernels(NamedTuple):
    """The compiled face of a game: numba functions over its compact state ``s`` (a UniTuple of int64).

    All of them are pure: none mutates its arguments except the ``out`` buffers. Games build it by
    keyword; optional kernels have defaults, so adding one edits only the games that provide it.

    * ``legal_actions(s, out: int64[:]) -> int`` writes the legal actions (the outcomes at a chance
      node) in increasing order into ``out[:n]`` and returns ``n``; ``out`` holds ``max_actions``.
    * ``apply(s, action) -> s2`` returns the successor; for an action that is not legal in ``s`` (any
      action of a terminal state, any int64 out of range), a state whose player code is `ILLEGAL`.
      The check is a few bit operations, and it makes the kernel the one judge of legality.
    * ``chance_outcomes(s, actions: int64[:], probs: float64[:]) -> int`` lists the outcomes of a
      chance node with their probabilities (optional: games without chance keep the default, none).
    * ``hash_key(s) -> int64`` is a stable key (the same in every process) for transposition tables.
    * ``observation(s, player, out: float32[*observation_shape])`` fills the planes seen by ``player``
      (0 or 1); search and self-play pass the side to move.

    Optional, for the searches (a game that leaves one out gets the default, and `provides` tells):

    * ``tactical_actions(s, out: int64[:]) -> int`` writes the moves that quiescence search follows
      past the horizon (captures, promotions; legal moves only) into ``out[:n]``; quiescence then lets the side to move
      stand pat. Default: none; quiescence then follows every move of a position the search's
      ``is_quiet`` test rejects (by default, none).
    * ``repetition(s, keys: int64[:], n) -> int`` judges ``s`` given the keys (`hash_key`) of the
      positions before it, oldest first, in ``keys[:n]`` (the game's history, then the search's path):
      `NO_REPETITION`, `REPETITION_DRAW` or `REPETITION_ILLEGAL`. The game sets the rule (twofold or
      threefold, reset by an irreversible move): FIDE's and OpenSpiel's are both expressible. Terminal
      states are judged too, and a verdict other than `NO_REPETITION` overrides how they ended (go's
      superko draws a game that its last move also ended by length); a game whose rules end the game
      first returns `NO_REPETITION` for them (chess).
    * ``null_move(s) -> s2`` passes the turn (for null-move pruning); a state whose player code is
      `ILLEGAL` where the game allows no null move (in check, or in a likely zugzwang).
    * ``move_score(s, action) -> float`` orders moves, larger first, before killers and history when
      positive (MVV-LVA for captures); 0 leaves a move to the generic heuristics.
    * ``observer(s) -> int`` is the player from whose point of view the value of ``s`` is taken (and
      its observation made, by an evaluator that sees only ``s``): the side to move at a decision node;
      at a chance node, the player who moved into it (pig: the turn player, who rolled; backgammon:
      the player who just moved), as the searches take it; player 0 at a terminal state or where no
      one has moved yet. Default: the side to move, else 0.
    * ``playout(s, rng_state, actions, probs, moves=None) -> (s_terminal, plies)`` is the game's own
      playout policy, which random rollouts (MCTS without an evaluator, the ``rollout`` evaluator,
      `rlgames.playout`) play instead of uniformly random legal actions: go's light playouts, which never
      fill their own eyes, end where uniformly random go would wander for hundreds of moves. It sees no
      history (go's playouts leave superko out). Given ``moves`` (int64) it records its first
      ``len(moves)`` plies there by `record_move` (RAVE reads them). Default None:
      uniformly random legal actions.
    * ``settle(s) -> s2`` is the state search values in place of ``s``: ``s`` itself, or where ``s`` is a
      decision the game takes outside search by a formula (`Game.formula_decision`: backgammon's cube),
      the state after its passive choice (no double: the roll). Searches settle every child and refuse
      a root that settles elsewhere. Default: ``s``.
    * ``stakes(s) -> float`` in (0, 1] is the share of the game's largest returns ``s`` is played for
      (backgammon's cube: its value over the largest cube's): evaluators value a position as if played for
      the whole of them (backgammon: per unit of the cube, in the scale of the game without it), and
      search multiplies their values by it to meet the returns, which count the stakes. Default: 1.
    * ``max_return`` is the largest return (``GameInfo.utility[1]``, filled in by `Game`), by which
      compiled code scales returns into values.
    * ``repetition_illegal`` is ``GameInfo.repetition_illegal``, filled in by `Game`: whether a search
      must judge every move for a forbidden repetition before choosing among them (MCTS otherwise judges a
      child on its first visit).
    """

    legal_actions: Callable[..., int]
    apply: Callable[..., CompactState]
    hash_key: Callable[..., int]
    observation: Callable[..., None]
    max_actions: int
    chance_outcomes: Callable[..., int] = no_chance_outcomes
    tactical_actions: Callable[..., int] = no_tactical_actions
    repetition: Callable[..., int] = no_repetition
    null_move: Callable[..., CompactState] = no_null_move
    move_score: Callable[..., float] = no_move_score
    observer: Callable[..., int] = side_to_move_observer
    playout: Callable[..., tuple[CompactState, int]] | None = None
    settle: Callable[..., CompactState] = unsettled
    stakes: Callable[..., float] = full_stakes
    max_return: int = 1
    repetition_illegal: bool = False

    def provides(self, kernel: str) -> bool:
        """Whether the game gives its own optional ``kernel`` (not the default)."""
        return getattr(self, kernel) is not GameKernels._field_defaults[kernel]


class FeatureSet(NamedTuple):
    """One family of an NNUE's sparse inputs that a game offers, by name in `Game.feature_sets` (as
    Stockfish's ``nnue/features/*`` each implement one set behind one interface): chess's ``pieces``,
    ``threats`` and ``positional``, connect four's ``lines``, othello's ``patterns``. A network names
    the sets it reads (`rlgames.models.networks.NNUEArgs.inputs`); their inputs are numbered one set after the
    other, in the network's order.

    * ``features(s, player, out: int64[:]) -> int`` writes the indices of the active inputs seen by
      ``player`` (each in ``[0, inputs)``) into ``out[:n]`` and returns ``n`` (at most ``most``). An
      index written twice is an input of 2 (two of othello's patterns sharing a row). The NNUE reads
      them from ``observer(s)``.
    * ``changes(s, s2, player, out: int64[:]) -> int`` (optional) writes the inputs seen by ``player``
      that differ between ``s`` and its child ``s2`` (an input ``s2`` gains as its index, one it loses
      as ``-1 - index``), for an NNUE that updates its accumulator from the parent's (chess: the few
      pieces a move moves); None: the NNUE compares the two positions' inputs.
    * ``recomputed``: the set changes too widely with a move to update, so an NNUE updated move by move
      recomputes it at each evaluation (chess's threats and positional inputs); such sets follow the
      updated one in a network's inputs.
    """

    features: Callable[..., int]
    inputs: int
    most: int
    changes: Callable[..., int] | None = None
    recomputed: bool = False


class Encoding(NamedTuple):
    """A dense input of a network other than the game's observation, by name in `Game.encodings`:
    backgammon's ``expert``, the observation followed by the hand-crafted evaluator's features (as
    TD-Gammon 1.0 gave its network hand-crafted features beside the raw board); connect four's
    ``threats``, the observation's planes followed by planes of the cells that would complete a four
    (as KataGo gives its network liberties and ladders beside the stones). A network names it as its
    one input (`rlgames.models.networks.NNUEArgs.inputs`, `rlgames.models.networks.ResNetArgs.inputs`).

    * ``encode(s, player, out: float32[*shape])`` writes every entry as ``player`` sees ``s``.
    * ``shape``: a vector ``(size,)``, or planes ``(C, H, W)`` on the observation's board (its last two
      axes), so that the game's symmetries (`Symmetry.observation`) map them as they map the observation.
    * ``extends_observation``: its first entries are the observation's, so that a network of the
      observation starts a network of it (`rlgames.train.td`'s ``init``: the rows of the rest at 0).
    """

    encode: Callable[..., None]
    shape: tuple[int, ...]
    extends_observation: bool = False

    @property
    def size(self) -> int:
        """The number of entries."""
        return math.prod(self.shape)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winner`` (0, 1, or None for a draw), ``returns`` (player 0's, player 1's),
    and ``termination`` (``"normal"``, ``"repetition"``, or the game's own word: ``"checkmate"``...),
    as python-chess's ``Outcome``; `result` writes it for PGN, SGF or a table."""

    winner: int | None
    returns: tuple[float, float]
    termination: str = "normal"

    @property
    def result(self) -> str:
        """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"`` (PGN's), followed by the points where a win is worth more
        than one (``"1-0 (2 points)"``)."""
        if self.winner is None:
            return "1/2-1/2"
        text = "1-0" if self.winner == 0 else "0-1"
        points = abs(self.returns[0])
        return text if points == 1 else f"{text} ({points:g} points)"


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of the board, for data augmentation.

    ``action_map[a]`` is the image of action ``a``; ``transform`` maps an observation (planes shaped
    ``game.observation_shape``) to the observation of the transformed position.
    """

    name: str
    action_map: np.ndarray  # int64[num_actions]
    transform: Callable[[np.ndarray], np.ndarray]

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self.transform(observation))

    def policy(self, policy: np.ndarray) -> np.ndarray:
        """The policy (or legal mask) over the transformed position's actions, ``out[..., map[a]] = p[..., a]``:
        of one position (``[num_actions]``) or of a batch (``[N, num_actions]``)."""
        out = np.empty_like(policy)
        out[..., self.action_map] = policy
        return out


def dihedral_symmetries(size: int, extra_actions: int = 0) -> tuple[Symmetry, ...]:
    """The 8 symmetries of a square ``size`` x ``size`` board whose cell actions are ``row * size + col``.

    Actions past the cells (``extra_actions`` of them, e.g. othello's pass) map to themselves.
    """
    transforms: list[tuple[str, Callable[..., np.ndarray]]] = []  # (x, k=k): each binds its k as a default
    for k in range(4):
        transforms.append((f"rot{90 * k}", lambda x, k=k: np.rot90(x, k, axes=(-2, -1))))
        transforms.append((f"rot{90 * k}+flip", lambda x, k=k: np.flip(np.rot90(x, k, axes=(-2, -1)), -1)))
    cells = np.arange(size * size).reshape(size, size)
    extra = np.arange(size * size, size * size + extra_actions)
    symmetries = []
    for name, transform in transforms:
        image = np.empty(size * size, dtype=np.int64)
        image[transform(cells).ravel()] = np.arange(size * size)  # cell c lands where transform puts it
        symmetries.append(Symmetry(name, np.concatenate([image, extra]), transform))
    return tuple(symmetries)


class Game(abc.ABC):
    """The rules of a game. Create games with `rlgames.load_game`.

    Subclasses set the class attributes ``name``, ``state_class`` and ``info`` (a `GameInfo`; a game
    with parameters overrides `describe` instead), and ``kernels`` (in ``__init__`` when they depend on
    the parameters), then call ``super().__init__(**params)``, which copies the sizes from
    ``describe(**params)`` and compiles (or loads from numba's cache) the ``apply`` kernel for the
    facade, `fast_apply`.
    """

    name: ClassVar[str]
    """Registry name, e.g. ``"connect_four"``."""
    version: ClassVar[int] = 1
    """Bumped whenever the rules, the action numbering or the observation change (checkpoints record it)."""
    state_class: ClassVar[type[State]]
    info: GameInfo
    """The game's `GameInfo`: a class attribute for a game without parameters, else set per instance."""
    heuristic: ClassVar[str | None] = None
    """``".module:Class"`` of the game's hand-crafted evaluator (`rlgames.evaluators`'s ``heuristic``),
    a module of the game's own package (``".evaluator:ChessEvaluator"``), imported by `locate` only when
    one is asked for; None: the game has none."""
    playouts: ClassVar[dict[str, str]] = {}
    """The game's other named playout policies, ``name -> ".module:kernel"`` (a compiled playout with the
    ``playout`` kernel's signature), which MCTS's random rollouts play as ``mcts(rollout=NAME)`` (go's
    ``patterns``)."""
    rollout_policy: ClassVar[str | None] = None
    """The game's learnable playout policy, ``".module:object"`` (go's: a linear softmax over move features,
    AlphaGo's p_pi), whose weights ``python -m rlgames.train.rollout`` fits to the moves of a strong player
    and which MCTS plays as ``mcts(rollout=FILE.npz)``. The object gives ``num_shapes`` and
    ``local_names`` (the features: a class of shape, and flags), ``candidates(state, last_action) ->
    (actions, shapes, flags)``, ``save(path, shape, local, **meta)`` and ``playout(path)``, a compiled
    ``playout`` kernel. None: the game has none."""
    evaluators: ClassVar[dict[str, str]] = {}
    """The game's other named evaluators, ``name -> ".module:Class"`` (built as ``Class(**params)``),
    which `rlgames.evaluators.load_evaluator` also accepts for this game (backgammon's ``pubeval``)."""
    default_agent: ClassVar[str | None] = None
    """The agent spec `rlgames play` sets against a person unless told otherwise; None:
    ``alphabeta(depth=6)``, or ``expectiminimax(depth=4)`` in a game with chance nodes."""
    solver: ClassVar[str | None] = None
    """``".module:function"`` of an exact solver made for the game, ``solve(state, *, time_limit)``, in
    the game's package (``".solver:solve"``); None: `rlgames.solvers` uses its generic exhaustive solver."""
    move_separator: ClassVar[str] = " "
    """What separates the moves of a line written in the game's notation (position and opening files)."""
    record_format: ClassVar[str | None] = None
    """The file extension of the game's own record of a played game (``"pgn"`` for chess, ``"sgf"`` for
    go), written by `export_record`; None: the game has none (the arena's games.csv still has the moves)."""
    feature_sets: ClassVar[dict[str, FeatureSet]] = {}
    """The game's NNUE input families by name, from its ``features.py``; the first is what an NNUE reads
    unless told otherwise (`FeatureSet`). Empty: an NNUE reads the observation."""
    fused_feature_sets: ClassVar[dict[tuple[str, ...], FeatureSet]] = {}
    """One kernel for a run of the game's feature sets, by their names in order: the same inputs as the
    sets one after the other, computed together where they share work (chess's threats and positional
    inputs both need every piece's attacks); an NNUE reading the run reads it through that kernel."""
    encodings: ClassVar[dict[str, Encoding]] = {}
    """The game's dense network inputs other than its observation, by name (`Encoding`); a network reads
    one only when it names it."""
    search_defaults: ClassVar[dict[str, dict[str, Any]]] = {}
    """The settings each agent takes in this game unless its spec gives them, by agent name (chess:
    ``{"alphabeta": {"quiescence": 8}}``, a search that stops at quiet positions): `rlgames.load_agent` adds
    them, so ``arena``, ``compare``, ``play`` and ``uci`` play the game's usual search; a spec overrides
    one by naming it (``quiescence=0``)."""
    small_params: ClassVar[dict[str, Any]] = {}
    """Parameters that keep a random game short, for the contract tests that play every game (pig:
    ``winscore=20``); empty: the defaults are short enough."""
    protocols: ClassVar[dict[str, str]] = {}
    """The engine protocols the game speaks, ``name -> ".module:Class"`` of the engine in its package (chess:
    ``{"uci": ".uci:UciEngine"}``), each built as ``Class(game, agent_spec)`` with a ``run(stdin)`` loop by
    the CLI verb of the same name."""

    num_actions: int
    observation_shape: tuple[int, ...]
    max_game_length: int
    """An upper bound on the number of actions (chance outcomes included) in one game."""
    has_chance: bool
    kernels: GameKernels
    fast_apply: Callable[[CompactState, int], CompactState]
    """``kernels.apply`` called through its compiled entry point, for the Python facade: it skips numba's
    type dispatch (a large part of a call from Python), so it must only be given this game's
    compact states and int actions."""

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = dict(params)
        self.info = info = type(self).describe(**params)
        # Plain attributes, not properties: the search and the facade read them often.
        self.num_actions, self.observation_shape = info.num_actions, info.observation_shape
        self.max_game_length, self.has_chance = info.max_game_length, info.has_chance
        # Set here, not as cached properties: a descriptor of the same name on the class keeps CPython
        # from specializing the attribute load, a cost paid in every `State.apply`.
        if (self.kernels.max_return, self.kernels.repetition_illegal) != (info.utility[1], info.repetition_illegal):
            # stated once, in the GameInfo
            self.kernels = self.kernels._replace(max_return=info.utility[1], repetition_illegal=info.repetition_illegal)
        self.fast_apply = self._first_apply  # the compiled entry point once the first move is made
        # The start, made on first use (`new_initial_state`): a game whose start the rules compute
        # compiles them then, not when it is loaded. A plain attribute, as fast_apply, for the same reason.
        self._initial_compact: CompactState | None = None

    def _first_apply(self, compact: CompactState, action: int) -> CompactState:
        """`fast_apply` until a first move: compiles the rules' ``apply`` (or loads it from numba's cache)
        then, not when the game is loaded, and puts its entry point in its place."""
        self.fast_apply = compiled_entry(self.kernels.apply, self.new_initial_state().compact, 0)
        return self.fast_apply(compact, action)

    @classmethod
    def locate(cls, pointer: str) -> Any:
        """The object that a ``"module:name"`` pointer (`heuristic`, `solver`, `evaluators`) names, importing
        its module; a module written with a leading dot is one of the game's own package."""
        module_name, _, name = pointer.partition(":")
        package = cls.__module__.rpartition(".")[0]
        return getattr(importlib.import_module(module_name, package), name)

    @classmethod
    def describe(cls) -> GameInfo:
        """The `GameInfo` of the game, computed without compiling anything. A game with parameters
        overrides it, taking the parameters of its ``__init__`` (checked: a bad value raises
        `ValueError`); its signature is the game's parameter list."""
        return cls.info

    def export_record(
        self,
        actions: Sequence[int],
        *,
        players: tuple[str, str],
        outcome: Outcome,
        event: str = "rlgames",
        round: int | None = None,
    ) -> str:
        """A played game (``actions`` from the start, ``players`` as player 0 and player 1) in the game's
        `record_format`, for the tools of its world (a chess GUI reads PGN)."""
        raise NotImplementedError(f"{self.name} has no record format")

    # --- states ------------------------------------------------------------------------------
    @abc.abstractmethod
    def initial_compact_state(self) -> CompactState:
        """The compact state of the start position."""

    def new_initial_state(self) -> State:
        state = _new_object(self.state_class)  # as in `State.apply`: this starts every playout
        state.game = self
        if self._initial_compact is None:
            self._initial_compact = self.initial_compact_state()
        state.compact = self._initial_compact
        return state

    def state_from_actions(self, actions: Sequence[int]) -> State:
        """The state reached by playing ``actions`` from the start; raises on an illegal one."""
        state = self.new_initial_state()
        for action in actions:
            state = state.apply(action)
        return state

    def state_from_moves(self, moves: str | Sequence[str]) -> State:
        """The state reached by a sequence of moves in the game's notation (a list, or a string
        separated by spaces or commas)."""
        if isinstance(moves, str):
            moves = moves.replace(",", " ").split()
        state = self.new_initial_state()
        for move in moves:
            state = state.apply(state.string_to_action(move))
        return state

    def parse_position_line(self, text: str) -> tuple[tuple[int, ...], int | None]:
        """The actions of a position written as a line of moves from the start, and its label (None:
        unlabelled). This default reads moves separated by spaces or commas, with no label; raises
        `ValueError` naming a bad move."""
        state, actions = self.new_initial_state(), []
        for move in text.replace(",", " ").split():
            action = state.string_to_action(move)
            state = state.apply(action)
            actions.append(action)
        return tuple(actions), None

    def benchmark_positions(self, sets: Sequence[str]) -> list[State]:
        """The positions of the game's published benchmark sets named ``sets`` (none by default)."""
        return []

    # --- what an exact solver can finish ----------------------------------------------------------
    def too_big_to_solve(self, state: State) -> str | None:
        """Why the generic exhaustive solver cannot finish ``state`` (one sentence naming the measure and
        its bound), or None to let it try; `rlgames.solvers.solve` refuses at once a position with a
        reason. A game that grows past the solver's memory within its length says where (othello: more
        than 12 empty squares); the default tries every position."""
        return None

    # --- decisions taken by formula ---------------------------------------------------------------
    def formula_decision(self, state: State, evaluator: Any, *, passive: bool = False) -> tuple[int, float] | None:
        """``(action, value)`` at a decision the game's players take by a formula over an evaluator's
        estimates rather than by search (backgammon's cube: Janowski's over the outcome probabilities),
        the value from the side to move as search gives it; ``passive``: the choice that declines
        (backgammon: never double, always take). None where search decides: every decision by default.
        The agents ask it first; `GameKernels.settle` is its counterpart inside search."""
        return None

    def network_game(self) -> Game:
        """The game whose networks value this one's positions: itself, or where this one only adds
        decisions taken by formula, the game without them (backgammon with the cube: without it; its
        compact states and observations are the same but for those decisions)."""
        return self

    # --- networks trained for other parameters ---------------------------------------------------
    def value_scale(self, params: Mapping[str, Any]) -> float | None:
        """The factor that turns the values of a network trained for this game with ``params`` into this
        game's, where the two games differ only in how returns are scored (backgammon's scoring types: a
        win/loss network's value read as an expected return, now divided by a larger largest return);
        1.0 for this game's own params, None where they change more (the default: any other params)."""
        return 1.0 if dict(params) == self.params else None

    # --- symmetries ---------------------------------------------------------------------------
    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board's symmetries, identity first; just the identity for games without any."""
        identity = np.arange(self.num_actions, dtype=np.int64)
        return (Symmetry("identity", identity, lambda x: x),)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))


class State:
    """One immutable position of a game.

    Games subclass it to add their notation (``action_to_string``, ``string_to_action``), ``__str__``
    and, where plain Python is faster than the generic kernel call, ``legal_actions`` or ``apply``
    (tests then hold the two equal to the kernels, which the search keeps using).
    """

    __slots__ = ("compact", "game")

    def __init__(self, game: Game, compact: CompactState) -> None:
        self.game = game
        self.compact = compact

    # --- whose turn, and is it over ------------------------------------------------------------
    def current_player(self) -> int:
        """0 or 1, or `CHANCE` at a chance node, or `TERMINAL` once the game is over."""
        return self.compact[PLAYER]

    def is_terminal(self) -> bool:
        return self.compact[PLAYER] == TERMINAL

    def is_chance_node(self) -> bool:
        return self.compact[PLAYER] == CHANCE

    def returns(self) -> list[float]:
        """Final returns ``[player 0, player 1]``, zero-sum, in the game's utility range; both 0 while
        the game is not over."""
        r = float(self.compact[RETURN])
        return [r, -r] if r else [0.0, 0.0]

    def stakes(self) -> float:
        """The share of the game's largest returns this position is played for (`GameKernels.stakes`:
        backgammon's cube); 1 in most games."""
        return float(self.game.kernels.stakes(self.compact))

    def settled(self) -> State:
        """The state search values in place of this one (`GameKernels.settle`): itself, or after the
        passive choice of a decision the game takes by formula (backgammon's cube: the roll, undoubled)."""
        kernels = self.game.kernels
        if not kernels.provides("settle"):
            return self
        compact = kernels.settle(self.compact)
        return self if compact == self.compact else type(self)(self.game, compact)

    def outcome(self) -> Outcome | None:
        """How the game ended (None while it is not over)."""
        if not self.is_terminal():
            return None
        r = self.compact[RETURN]
        winner = None if r == 0 else 0 if r > 0 else 1
        return Outcome(winner, (float(r), float(-r)), self.termination())

    def termination(self) -> str:
        """Why the (terminal) game ended; games with several endings override it."""
        return "normal"

    # --- moves --------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal actions in increasing order (chance outcomes at a chance node; none when terminal)."""
        kernels = self.game.kernels
        buffer = np.empty(kernels.max_actions, dtype=np.int64)
        n = kernels.legal_actions(self.compact, buffer)
        return buffer[:n].tolist()

    def tactical_actions(self) -> list[int]:
        """The legal moves quiescence search follows past the horizon (the game's ``tactical_actions``
        kernel: captures, promotions), in the kernel's order; none by default."""
        kernels = self.game.kernels
        buffer = np.empty(kernels.max_actions, dtype=np.int64)
        n = kernels.tactical_actions(self.compact, buffer)
        return buffer[:n].tolist()

    def legal_action_mask(self) -> np.ndarray:
        """int8[num_actions], 1 where the action is legal."""
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; raises elsewhere."""
        if not self.is_chance_node():
            raise ValueError(f"chance_outcomes() called on a non-chance state of {self.game.name}")
        kernels = self.game.kernels
        actions = np.empty(kernels.max_actions, dtype=np.int64)
        probs = np.empty(kernels.max_actions, dtype=np.float64)
        n = kernels.chance_outcomes(self.compact, actions, probs)
        return list(zip(actions[:n].tolist(), probs[:n].tolist()))

    def sample_chance_outcome(self, rng: np.random.Generator) -> int:
        """A chance outcome drawn from ``rng`` by its probability (one ``rng.choice`` call); raises
        elsewhere than at a chance node."""
        outcomes, probs = zip(*self.chance_outcomes())
        return int(outcomes[rng.choice(len(outcomes), p=probs)])

    def apply(self, action: int) -> Self:
        """The successor after ``action``; the receiver is unchanged. Raises `IllegalActionError`."""
        if type(action) is not int:  # the compiled entry point would coerce 3.7 or "3" to 3
            action = self._as_int(action)
        game = self.game
        fast_apply = game.fast_apply  # an attribute load, which CPython specializes; a method load is not
        try:
            compact = fast_apply(self.compact, action)
        except OverflowError:  # beyond int64
            compact = (ILLEGAL,)
        if compact[PLAYER] == ILLEGAL:
            self.check_legal(action)  # raises, naming the problem
        state = _new_object(type(self))  # no Python-level __init__ call: this is the API's hot path
        state.game = game
        state.compact = compact
        return state

    def _as_int(self, action: object) -> int:
        """``action`` as an int if it is a (numpy) integer; raises `IllegalActionError` otherwise."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"{self.game.name}: action {action!r} is illegal: actions are ints")
        return int(action)

    def check_legal(self, action: int) -> None:
        """Raises `IllegalActionError`, naming the problem, unless ``action`` is legal here."""
        if self.is_terminal() or not self.is_legal(self._as_int(action)):
            raise self._illegal_action_error(action)

    def _illegal_action_error(self, action: int) -> IllegalActionError:
        """The error for an int ``action`` that is not legal here, naming the problem."""
        if self.is_terminal():
            return IllegalActionError(f"{self.game.name}: no action is legal, the game is over")
        legal = ", ".join(f"{self.action_to_string(a)} ({a})" for a in self.legal_actions())
        return IllegalActionError(f"{self.game.name}: {self._describe(action)} is illegal here; legal: {legal}")

    def _describe(self, action: object) -> str:
        if isinstance(action, (int, np.integer)) and 0 <= action < self.game.num_actions:
            return f"move {self.action_to_string(int(action))} (action {action})"
        return f"action {action!r}"

    def is_legal(self, action: int) -> bool:
        """Whether the int ``action`` is legal here (as the ``apply`` kernel judges it)."""
        try:
            return self.game.fast_apply(self.compact, action)[PLAYER] != ILLEGAL
        except OverflowError:  # beyond int64
            return False

    # --- what the players see -------------------------------------------------------------------
    def observation(self, player: int | None = None) -> np.ndarray:
        """float32[*observation_shape], values in [0, 1]: planes from ``player``'s point of view, by
        default the `observer`'s."""
        if player is None:
            player = self.observer()
        elif player not in (0, 1):
            raise ValueError(f"{self.game.name}: player must be 0 or 1, got {player!r}")
        out = np.zeros(self.game.observation_shape, dtype=np.float32)
        self.game.kernels.observation(self.compact, player, out)
        return out

    def observer(self) -> int:
        """Whose point of view `observation` takes by default: the side to move; at a chance node the
        game says (its ``observer`` kernel: pig's turn player); player 0 once the game is over."""
        player = self.compact[PLAYER]
        if player == CHANCE:
            return int(self.game.kernels.observer(self.compact))
        return max(player, 0)

    def hash_key(self) -> int:
        """A stable 64-bit key of the position (equal positions, equal keys, in every process)."""
        return int(self.game.kernels.hash_key(self.compact))

    def history(self) -> tuple[int, ...]:
        """The keys of the positions before this one, oldest first, where the rules look at them
        (`HistoryState`); empty otherwise."""
        return ()

    def action_to_string(self, action: int) -> str:
        """The action in the game's usual notation."""
        return str(action)

    def string_to_action(self, text: str) -> int:
        """Parses a move in the game's notation; raises `ValueError` naming the problem."""
        try:
            action = int(text)
        except ValueError:
            raise ValueError(f"{self.game.name}: cannot read move {text!r}") from None
        if not 0 <= action < self.game.num_actions:
            raise ValueError(f"{self.game.name}: move {text!r} is out of range [0, {self.game.num_actions})")
        return action

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board's symmetries (the game's); identity first."""
        return self.game.symmetries()

    def board_grid(self) -> np.ndarray:
        """int8[H, W], a picture of the position for renderers: 0 an empty cell, 1 a piece of
        player 0, 2 a piece of player 1, 3 a neutral token (a nim stone, a counter)."""
        raise NotImplementedError(f"{self.game.name} has no board picture")

    # --- plumbing ------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other.game == self.game and other.compact == self.compact

    def __hash__(self) -> int:
        return hash(self.compact)

    def __repr__(self) -> str:
        return f"<{self.game.name} state {self.compact}>"


class HistoryState(State):
    """A state of a game whose rules look at earlier positions (``GameInfo.history_dependent``).

    It keeps the keys of the positions before it, and its game's ``repetition`` kernel judges every
    move against them: a move into a position the rules forbid to repeat is illegal (and missing from
    `legal_actions`); one into a repetition the rules draw ends the game, with `termination`
    ``"repetition"``. Two states are equal when their positions and histories are.
    """

    __slots__ = ("_history", "_repeated")
    _history: tuple[int, ...]  # unset on a state made without history: read through `history`
    _repeated: bool  # set on the state that a drawn repetition ends

    def history(self) -> tuple[int, ...]:
        return getattr(self, "_history", ())

    def _judge(self, child: CompactState) -> int:
        """The repetition kernel's verdict on ``child``, reached from this state."""
        keys = np.array((*self.history(), self.hash_key()), dtype=np.int64)
        return int(self.game.kernels.repetition(child, keys, len(keys)))

    def apply(self, action: int) -> Self:
        child = super().apply(action)
        child._history = (*self.history(), self.hash_key())
        verdict = self._judge(child.compact)
        if verdict == REPETITION_ILLEGAL:
            raise IllegalActionError(
                f"{self.game.name}: {self._describe(action)} repeats an earlier position, which the rules forbid"
            )
        if verdict == REPETITION_DRAW:
            child.compact = (TERMINAL, 0, *child.compact[2:])
            child._repeated = True
        return child

    def legal_actions(self) -> list[int]:
        actions = super().legal_actions()
        if not actions or self.is_chance_node() or not self.game.info.repetition_illegal:
            return actions
        apply = self.game.fast_apply
        return [a for a in actions if self._judge(apply(self.compact, a)) != REPETITION_ILLEGAL]

    def tactical_actions(self) -> list[int]:
        return [a for a in super().tactical_actions() if self.is_legal(a)]

    def is_legal(self, action: int) -> bool:
        return super().is_legal(action) and (
            self.is_chance_node()
            or not self.game.info.repetition_illegal
            or self._judge(self.game.fast_apply(self.compact, action)) != REPETITION_ILLEGAL
        )

    def termination(self) -> str:
        return "repetition" if getattr(self, "_repeated", False) else super().termination()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HistoryState) and super().__eq__(other) and other.history() == self.history()

    def __hash__(self) -> int:
        return hash((self.compact, self.history()))
