"""Accounts: sign-up and look-up (the example repository that the duplicate-email plan cites)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Account:
    email: str
    name: str


@dataclass
class Accounts:
    by_email: dict[str, Account] = field(default_factory=dict)

    def create_account(self, email: str, name: str) -> Account:
        # Today two sign-ups that differ only in case or surrounding spaces both succeed:
        # "Ada@Example.com" and " ada@example.com" become two accounts. The plan fixes this.
        account = Account(email=email, name=name)
        self.by_email[email] = account
        return account

    def find(self, email: str) -> Account | None:
        return self.by_email.get(email)


def normalize_email(email: str) -> str:
    return email.strip().lower()
