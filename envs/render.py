"""Pictures of positions, drawn with numpy only (no pygame, no PIL).

`board_image` turns a `State.board_grid()` (0 empty, 1 player 0, 2 player 1, 3 neutral) into an RGB
picture; `board_text` is the ``"ansi"`` rendering: the game's text and a status line.
"""

from __future__ import annotations

import numpy as np

from rlgames import State
from rlgames.play import outcome_text

CELL_PX = 48
"""Side of one board cell in pixels."""
BOARD_RGB = (34, 120, 74)
GRID_RGB = (20, 50, 30)
PIECE_RGB = {1: (25, 25, 25), 2: (240, 240, 235), 3: (200, 60, 50)}
"""Disc colours by grid code: player 0, player 1, a neutral token."""
DISC_RADIUS = 0.4
"""Disc radius as a fraction of the cell side."""


def board_image(grid: np.ndarray, cell_px: int = CELL_PX) -> np.ndarray:
    """uint8[H * cell_px + 1, W * cell_px + 1, 3]: a board background, grid lines and filled discs.

    ``grid`` is an int array of shape (H, W) with codes 0 to 3, as returned by `State.board_grid`.
    """
    grid = np.asarray(grid)
    if grid.ndim != 2 or not np.isin(grid, (0, 1, 2, 3)).all():
        raise ValueError(f"board grid must be a 2-D array of codes 0..3, got shape {grid.shape}")
    if cell_px < 4:
        raise ValueError(f"cell_px must be at least 4 pixels, got {cell_px}")
    rows, cols = grid.shape
    ys = np.arange(rows * cell_px + 1)
    xs = np.arange(cols * cell_px + 1)
    image = np.empty((ys.size, xs.size, 3), dtype=np.uint8)
    image[:] = BOARD_RGB
    codes = grid[np.minimum(ys // cell_px, rows - 1)][:, np.minimum(xs // cell_px, cols - 1)]
    centre = (cell_px - 1) / 2
    dy = (ys % cell_px - centre)[:, None]
    dx = (xs % cell_px - centre)[None, :]
    disc = dy**2 + dx**2 <= (DISC_RADIUS * cell_px) ** 2
    for code, rgb in PIECE_RGB.items():
        image[disc & (codes == code)] = rgb
    image[ys % cell_px == 0, :] = GRID_RGB
    image[:, xs % cell_px == 0] = GRID_RGB
    return image


def board_text(state: State, status: str) -> str:
    """The ``"ansi"`` rendering: ``str(state)`` followed by a status line."""
    return f"{state}\n{status}\n"


def result_text(state: State) -> str:
    """How a terminal state ended (`rlgames.play.outcome_text`), e.g. ``"game over: player 1 wins, 0-1,
    normal"`` or ``"game over: draw, 1/2-1/2, repetition"``."""
    outcome = state.outcome()
    if outcome is None:
        raise ValueError(f"{state.game.name}: the game is not over")
    return outcome_text(outcome)
