"""Sign-up: normalize the address before anything else."""


def signup(address: str) -> str:
    return address.strip().lower() if address.strip() else ""
