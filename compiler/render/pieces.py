"""A page written as it is made, in pieces of about a megabyte: a large plan's page (Markdown or
HTML) is never held whole, and the template's many small fragments are not written one by one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

PIECE_CHARACTERS = 1 << 20


def batches(fragments: Iterable[str]) -> Iterator[str]:
    """The template's many small fragments, joined into pieces of about PIECE_CHARACTERS."""
    batch: list[str] = []
    size = 0
    for fragment in fragments:
        batch.append(fragment)
        size += len(fragment)
        if size >= PIECE_CHARACTERS:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)
