"""Events: nested classes, decorated and async definitions."""

from __future__ import annotations

import functools

RETRIES: int = 3


class Outbox:
    class Message:
        def encode(self) -> bytes:
            return b""

    @functools.cache  # noqa: B019
    def size(self) -> int:
        return 0


async def publish(outbox: Outbox) -> None:
    return None
