"""The compact state of a chess position: a tuple of 17 int64.

========  ==========================================================================================
slot      content
========  ==========================================================================================
0         player code: 0 white to move, 1 black, `TERMINAL` once over (`ILLEGAL` from a bad apply)
1         white's return once over: 1, 0 or -1
2 .. 7    bitboards of the pawns, knights, bishops, rooks, queens and kings of both colours
8, 9      bitboards of the white and of the black pieces
10        castling rights, bits 1 K, 2 Q, 4 k, 8 q (white kingside, white queenside, black ...)
11        en-passant target square, only when an en-passant capture is legal; else -1
12        halfmove clock (plies since the last capture or pawn move)
13        fullmove number (1 at the start, incremented after each black move)
14        Zobrist key of the position (pieces, side to move, castling rights, en-passant file)
15        termination code (`TERMINATIONS`), 0 while the game goes on
16        the side to move, 0 or 1, kept once the game is over
========  ==========================================================================================

Squares are a1 = 0, b1 = 1 .. h8 = 63; bit ``sq`` of a bitboard is square ``sq`` (bit 63, h8, is the
sign bit of the int64). Slots 0 and 2 .. 9 are what the evaluators read.
"""

PLAYER, RETURN = 0, 1
PIECES = 2  # slot of the pawns; piece code p (actions.PAWN .. KING) is slot PIECES + p
PAWNS, KNIGHTS, BISHOPS, ROOKS, QUEENS, KINGS = range(2, 8)
WHITE, BLACK = 8, 9  # the white pieces' slot; colour c is slot WHITE + c
CASTLING, EP, HALFMOVE, FULLMOVE, KEY, TERMINATION, TURN = range(10, 17)

ONGOING, CHECKMATE, STALEMATE, FIFTY_MOVES, INSUFFICIENT_MATERIAL = range(5)
TERMINATIONS = ("normal", "checkmate", "stalemate", "fifty_moves", "insufficient_material")
"""The words of `ChessState.termination` by termination code (threefold repetition is judged by the
``repetition`` kernel on the game's history, and named ``"repetition"`` by `HistoryState`)."""
