"""HTTP errors of the accounts API."""


class Conflict(Exception):
    """409: the request conflicts with the current state (e.g. a duplicate email)."""

    status = 409
