"""Accounts: sign-up and look-up (the example repository that the finished plan, plan.yaml, cites)."""

from __future__ import annotations

from dataclasses import dataclass, field


class DuplicateEmail(ValueError):
    """A sign-up with an email that an account already has, once normalized (the API answers 409)."""


@dataclass
class Account:
    email: str
    name: str


@dataclass
class Accounts:
    by_email: dict[str, Account] = field(default_factory=dict)

    def create_account(self, email: str, name: str) -> Account:
        key = normalize_email(email)
        if key in self.by_email:
            raise DuplicateEmail(f"an account already has the email {key}")
        account = Account(email=key, name=name)
        self.by_email[key] = account
        return account

    def find(self, email: str) -> Account | None:
        return self.by_email.get(normalize_email(email))


def normalize_email(email: str) -> str:
    return email.strip().lower()
