"""The test file the plan's proof runs (a case folder is the repository its plan is checked against)."""

from app.accounts import Accounts


def test_a_duplicate_email_is_refused() -> None:
    accounts = Accounts()
    accounts.create_account("ada@example.com", "Ada")
