"""The app."""


def main() -> None:
    return None
