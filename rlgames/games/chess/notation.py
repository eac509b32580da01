"""Forsyth-Edwards Notation, read and written natively (python-chess is not needed for it).

`parse_fen` checks what makes a FEN unplayable and names the problem in a one-line `ValueError`:
malformed fields, not exactly one king a side, pawns on the first or last rank, the side not to move
in check, castling rights without their king and rook at home, an en-passant square that no double
push can have left. An en-passant square is kept only where an en-passant capture is legal, as
python-chess writes FENs (its ``en_passant="legal"``).
"""

from __future__ import annotations

from rlgames.games.chess.slots import CASTLING, EP, FULLMOVE, HALFMOVE, KEY, TURN, WHITE

PIECE_LETTERS = "pnbrqk"
"""The FEN letter of each piece code (black's; white's are upper case)."""
CASTLING_LETTERS = "KQkq"
"""The FEN letter of each castling-rights bit, lowest first."""
CASTLING_HOMES = ((4, 7), (4, 0), (60, 63), (60, 56))
"""The king's and the rook's squares that each castling right needs."""
FILES, RANKS = "abcdefgh", "12345678"
_MASK64 = (1 << 64) - 1
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def square_name(square: int) -> str:
    return FILES[square & 7] + RANKS[square >> 3]


def parse_square(text: str) -> int:
    """The square named ``text`` (``"e4"``); raises `ValueError`."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in RANKS:
        raise ValueError(f"{text!r} is not a square")
    return FILES.index(text[0]) + 8 * RANKS.index(text[1])


def _signed(bitboard: int) -> int:
    return bitboard - (1 << 64) if bitboard >> 63 else bitboard


def _placement(text: str) -> list[int]:
    """The 6 piece bitboards and 2 colour bitboards of a FEN's first field (unsigned)."""
    boards = [0] * 8
    rows = text.split("/")
    if len(rows) != 8:
        raise ValueError(f"the board has {len(rows)} ranks, not 8")
    for row, rank_text in enumerate(rows):
        rank, file, digit_before = 7 - row, 0, False
        for char in rank_text:
            if char in "12345678" and not digit_before:
                file += int(char)
            elif char.lower() in PIECE_LETTERS and file < 8:
                square = 8 * rank + file
                boards[PIECE_LETTERS.index(char.lower())] |= 1 << square
                boards[6 + char.islower()] |= 1 << square
                file += 1
            else:
                raise ValueError(f"rank {rank + 1} ({rank_text!r}) has the unexpected character {char!r}")
            digit_before = char.isdigit()
        if file != 8:
            raise ValueError(f"rank {rank + 1} ({rank_text!r}) covers {file} squares, not 8")
    return boards


def _check_board(boards: list[int]) -> None:
    kings = boards[5]
    for colour, name in enumerate(("white", "black")):
        count = bin(kings & boards[6 + colour]).count("1")
        if count != 1:
            raise ValueError(f"{name} has {count} kings, not 1")
        pieces, pawns = bin(boards[6 + colour]).count("1"), bin(boards[0] & boards[6 + colour]).count("1")
        if pieces > 16:  # as python-chess's Board.is_valid: the kernels' buffers hold no more
            raise ValueError(f"{name} has {pieces} pieces, more than 16")
        if pawns > 8:
            raise ValueError(f"{name} has {pawns} pawns, more than 8")
    if boards[0] & 0xFF0000_0000_0000_FF:
        raise ValueError("a pawn stands on the first or last rank")


def _castling(text: str, boards: list[int]) -> int:
    if text == "-":
        return 0
    rights = 0
    for char in text:
        if char not in CASTLING_LETTERS or rights >> CASTLING_LETTERS.index(char) & 1:
            raise ValueError(f"castling field {text!r} is not '-' or distinct letters of 'KQkq'")
        right = CASTLING_LETTERS.index(char)
        colour_board = boards[6 + right // 2]
        king, rook = CASTLING_HOMES[right]
        if not ((boards[5] & colour_board) >> king & 1 and (boards[3] & colour_board) >> rook & 1):
            raise ValueError(
                f"castling right {char!r} needs the king on {square_name(king)} and a rook on {square_name(rook)}"
            )
        rights |= 1 << right
    return rights


def _en_passant(text: str, boards: list[int], turn: int) -> int:
    """The en-passant square of the field (-1 for '-'), checked against the double push it implies."""
    if text == "-":
        return -1
    square = parse_square(text)
    step = -8 if turn == 0 else 8  # from the target square to the pawn that pushed
    occupied = boards[6] | boards[7]
    if (
        square >> 3 != (5 if turn == 0 else 2)
        or not (boards[0] & boards[7 - turn]) >> (square + step) & 1
        or occupied >> square & 1
        or occupied >> (square - step) & 1
    ):
        raise ValueError(f"en-passant square {text} does not follow a double pawn push")
    return square


def _counter(fields: list[str], index: int, name: str, default: int, minimum: int) -> int:
    if len(fields) <= index:
        return default
    text = fields[index]
    if not text.isdigit() or int(text) < minimum:
        raise ValueError(f"the {name} {text!r} is not an integer >= {minimum}")
    return int(text)


def parse_fen(fen: str) -> tuple:
    """The compact state of the position ``fen`` (4 to 6 fields; missing clocks default to 0 and 1),
    judged (terminal where it is mate, stalemate...); raises a one-line `ValueError` naming the
    problem."""
    from rlgames.games.chess.movegen import checkers
    from rlgames.games.chess.position import judge, with_legal_en_passant, zobrist

    try:
        fields = fen.split()
        if not 4 <= len(fields) <= 6:
            raise ValueError(f"it has {len(fields)} fields, not 4 to 6")
        boards = _placement(fields[0])
        _check_board(boards)
        if fields[1] not in ("w", "b"):
            raise ValueError(f"the side to move {fields[1]!r} is not 'w' or 'b'")
        turn = "wb".index(fields[1])
        rights = _castling(fields[2], boards)
        ep = _en_passant(fields[3], boards, turn)
        halfmove = _counter(fields, 4, "halfmove clock", 0, 0)
        fullmove = _counter(fields, 5, "fullmove number", 1, 1)
        s = (turn, 0, *map(_signed, boards), rights, -1, halfmove, fullmove, 0, 0, turn)
        if checkers(s[:TURN] + (1 - turn,)):
            raise ValueError(f"the side not to move ({'black' if turn == 0 else 'white'}) is in check")
    except ValueError as error:
        raise ValueError(f"chess: bad FEN {fen!r}: {error}") from None
    s = s[:KEY] + (zobrist(s),) + s[KEY + 1 :]
    if ep >= 0:
        s = with_legal_en_passant(s, ep)
    return judge(s)


def to_fen(s: tuple) -> str:
    """The FEN of compact state ``s``."""
    letters, rows = board_letters(s), []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for letter in letters[8 * rank : 8 * rank + 8]:
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    rights = "".join(c for i, c in enumerate(CASTLING_LETTERS) if s[CASTLING] >> i & 1) or "-"
    ep = square_name(s[EP]) if s[EP] >= 0 else "-"
    return f"{'/'.join(rows)} {'wb'[s[TURN]]} {rights} {ep} {s[HALFMOVE]} {s[FULLMOVE]}"


def board_letters(s: tuple) -> list[str]:
    """The FEN letter of the piece on each square, a1 first ('' for an empty square)."""
    letters = [""] * 64
    for piece, letter in enumerate(PIECE_LETTERS):
        pieces = s[2 + piece] & _MASK64
        while pieces:
            square = (pieces & -pieces).bit_length() - 1
            letters[square] = letter.upper() if s[WHITE] >> square & 1 else letter
            pieces &= pieces - 1
    return letters
