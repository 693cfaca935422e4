"""The written forms of a position read into a cube: the Kociemba facelet string, Singmaster
(Reid) cubie notation and the seed's ``U:... R:...`` position form (and back to that form)."""

from __future__ import annotations

from puzzlesat.core import InvalidInstanceError, ParseError
from puzzlesat.domains.rubik.cube import (
    CORNER_COLOURS,
    CORNER_FACELETS,
    CORNER_NAMES,
    EDGE_COLOURS,
    EDGE_FACELETS,
    EDGE_NAMES,
    FACES,
    SINGMASTER_CORNERS,
    SINGMASTER_EDGES,
    SINGMASTER_FACELETS,
    SOLVED_FACELETS,
    Cube,
    D,
    U,
)


def facelets_to_cube(facelets: str, source: str = "<input>", lineno: int = 1) -> Cube:
    """Read a 54-character URFDLB facelet string into a cube (legality not checked here).

    Raises:
        ParseError: not 54 letters from URFDLB.
        InvalidInstanceError: a wrong centre, or stickers that form no cubie.
    """
    if len(facelets) != 54 or any(ch not in FACES for ch in facelets):
        raise ParseError(
            f"{source}:{lineno}: expected a facelet string of 54 letters from URFDLB, "
            f"got {len(facelets)} characters: {facelets!r}"
        )
    where = f"{source}:{lineno}"
    for i, ch in enumerate(FACES):
        if facelets[4 + 9 * i] != ch:
            raise InvalidInstanceError(f"{where}: the centre of face {ch} must be {ch}, got {facelets[4 + 9 * i]!r}")
    # colour counts are not checked here: a cubie missing or twice (reported by
    # Cube.problems with its name) is the clearer message for the same mistake
    col = [FACES.index(ch) for ch in facelets]
    cp, co, ep, eo = [0] * 8, [0] * 8, [0] * 12, [0] * 12
    for i in range(8):
        stickers = [col[f] for f in CORNER_FACELETS[i]]
        found = False
        for ori in range(3):
            if stickers[ori] in (U, D):
                c1, c2 = stickers[(ori + 1) % 3], stickers[(ori + 2) % 3]
                for j in range(8):
                    if CORNER_COLOURS[j] == (stickers[ori], c1, c2):
                        cp[i], co[i], found = j, ori, True
                break
        if not found:
            raise InvalidInstanceError(
                f"{where}: the stickers at corner {CORNER_NAMES[i]} "
                f"({''.join(FACES[s] for s in stickers)}) form no corner cubie"
            )
    for i in range(12):
        a, b = (col[f] for f in EDGE_FACELETS[i])
        for j in range(12):
            if EDGE_COLOURS[j] == (a, b):
                ep[i], eo[i] = j, 0
                break
            if EDGE_COLOURS[j] == (b, a):
                ep[i], eo[i] = j, 1
                break
        else:
            raise InvalidInstanceError(
                f"{where}: the stickers at edge {EDGE_NAMES[i]} ({FACES[a]}{FACES[b]}) form no edge cubie"
            )
    return Cube(tuple(cp), tuple(co), tuple(ep), tuple(eo))


def singmaster_to_facelets(tokens: list[str], source: str = "<input>", lineno: int = 1) -> str:
    """Convert 20 Singmaster tokens to a facelet string.

    Raises:
        ParseError: wrong token count or shape.
    """
    if len(tokens) != 20:
        raise ParseError(f"{source}:{lineno}: Singmaster notation has 20 cubies, got {len(tokens)} tokens")
    f = list(SOLVED_FACELETS)
    for k, (token, facelets) in enumerate(zip(tokens, SINGMASTER_FACELETS, strict=True)):
        want = 2 if k < 12 else 3
        if len(token) != want or any(ch not in FACES for ch in token):
            where = SINGMASTER_EDGES[k] if k < 12 else SINGMASTER_CORNERS[k - 12]
            raise ParseError(
                f"{source}:{lineno}: token {k + 1} (position {where}) must be {want} letters from URFDLB, got {token!r}"
            )
        for ch, idx in zip(token, facelets, strict=True):
            f[idx] = ch
    return "".join(f)


def position_to_facelets(text: str, source: str = "<input>", lineno: int = 1) -> str:
    """Convert the seed's position form ``U:xxxxxxxxx R:... F:... D:... L:... B:...``.

    Colours are any letters; each face's centre sticker gives the colour of that face.

    Raises:
        ParseError: missing or repeated faces, wrong sticker counts, or a colour used by no
            centre.
    """
    faces: dict[str, str] = {}
    for token in text.split():
        name, sep, stickers = token.partition(":")
        name = name.upper()
        if not sep or name not in FACES or len(name) != 1:
            raise ParseError(f"{source}:{lineno}: expected 'FACE:stickers' with FACE in URFDLB, got {token!r}")
        if name in faces:
            raise ParseError(f"{source}:{lineno}: face {name} given twice")
        if len(stickers) != 9:
            raise ParseError(f"{source}:{lineno}: face {name} needs 9 stickers, got {len(stickers)} in {token!r}")
        faces[name] = stickers.upper()
    missing = [f for f in FACES if f not in faces]
    if missing:
        raise ParseError(f"{source}:{lineno}: face(s) {', '.join(missing)} missing from the position")
    colour_of = {faces[f][4]: f for f in FACES}
    if len(colour_of) != 6:
        raise ParseError(
            f"{source}:{lineno}: the six centres must have six different colours, got "
            + "".join(faces[f][4] for f in FACES)
        )
    out = []
    for f in FACES:
        for ch in faces[f]:
            if ch not in colour_of:
                raise ParseError(f"{source}:{lineno}: colour {ch!r} on face {f} is the colour of no centre")
            out.append(colour_of[ch])
    return "".join(out)


def facelets_to_position(facelets: str) -> str:
    """Write a facelet string in the seed's position form (face letters as colours)."""
    return " ".join(f"{f}:{facelets[9 * i : 9 * i + 9]}" for i, f in enumerate(FACES))
