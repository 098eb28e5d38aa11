"""Count the accounts whose normalized emails collide (read-only: prints a report)."""

import sqlite3
import sys


def main(path: str) -> int:
    rows = sqlite3.connect(path).execute(
        "SELECT lower(trim(email)), count(*) FROM accounts GROUP BY 1 HAVING count(*) > 1"
    ).fetchall()
    for email, count in rows:
        print(f"{count}\t{email}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "accounts.db"))
