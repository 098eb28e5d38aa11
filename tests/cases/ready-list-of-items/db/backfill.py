"""Backfill accounts.email_normalized from accounts.email."""


def run(connection):
    connection.execute("UPDATE accounts SET email_normalized = lower(trim(email))")
