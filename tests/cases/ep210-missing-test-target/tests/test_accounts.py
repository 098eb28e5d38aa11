import unittest

import pytest


def test_duplicate_email():
    pass


@pytest.mark.parametrize("email", ["Ada@Example.com", "ada@example.com"])
def test_normalize(email):
    pass


class TestSignup(unittest.TestCase):
    def test_sends_welcome(self):
        pass


class TestSignupByEmail(TestSignup):
    """Inherits test_sends_welcome."""
