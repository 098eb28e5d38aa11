"""Tests for app.accounts (part of the duplicate-email example repository)."""

from __future__ import annotations

import unittest

from app.accounts import Accounts, normalize_email


class CreateAccount(unittest.TestCase):
    def test_creates_an_account(self) -> None:
        accounts = Accounts()
        account = accounts.create_account("ada@example.com", "Ada")
        self.assertEqual(account.name, "Ada")

    def test_finds_an_account_by_email(self) -> None:
        accounts = Accounts()
        accounts.create_account("ada@example.com", "Ada")
        self.assertIsNotNone(accounts.find("ada@example.com"))


class NormalizeEmail(unittest.TestCase):
    def test_lowercases(self) -> None:
        self.assertEqual(normalize_email("Ada@Example.com"), "ada@example.com")

    def test_strips_spaces(self) -> None:
        self.assertEqual(normalize_email("  ada@example.com "), "ada@example.com")


class DuplicateEmail(unittest.TestCase):
    """The contract the plan's first item defines: a second sign-up with the same
    normalized email is rejected. Written before the implementation; expected to fail today."""

    @unittest.expectedFailure
    def test_rejects_a_normalized_duplicate(self) -> None:
        accounts = Accounts()
        accounts.create_account("ada@example.com", "Ada")
        with self.assertRaises(ValueError):
            accounts.create_account(" Ada@Example.com", "Ada again")


if __name__ == "__main__":
    unittest.main()
