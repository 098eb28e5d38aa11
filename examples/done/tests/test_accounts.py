"""Tests for app.accounts (part of the finished duplicate-email example repository)."""

from __future__ import annotations

import unittest

from app.accounts import Accounts, DuplicateEmail, normalize_email


class CreateAccount(unittest.TestCase):
    def test_creates_an_account(self) -> None:
        accounts = Accounts()
        account = accounts.create_account("ada@example.com", "Ada")
        self.assertEqual(account.name, "Ada")

    def test_finds_an_account_by_any_spelling_of_its_email(self) -> None:
        accounts = Accounts()
        accounts.create_account("ada@example.com", "Ada")
        self.assertIsNotNone(accounts.find(" Ada@Example.com"))


class NormalizeEmail(unittest.TestCase):
    def test_lowercases(self) -> None:
        self.assertEqual(normalize_email("Ada@Example.com"), "ada@example.com")

    def test_strips_spaces(self) -> None:
        self.assertEqual(normalize_email("  ada@example.com "), "ada@example.com")


class DuplicateEmails(unittest.TestCase):
    """The contract of the plan's first item: a second sign-up with the same normalized email
    is rejected, and the first account is kept."""

    def test_rejects_a_normalized_duplicate(self) -> None:
        accounts = Accounts()
        accounts.create_account("ada@example.com", "Ada")
        with self.assertRaises(DuplicateEmail):
            accounts.create_account(" Ada@Example.com", "Ada again")
        self.assertEqual(accounts.find("ada@example.com").name, "Ada")

    def test_a_duplicate_is_a_value_error(self) -> None:
        self.assertTrue(issubclass(DuplicateEmail, ValueError))


if __name__ == "__main__":
    unittest.main()
