-- The accounts schema.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL
);

CREATE UNIQUE INDEX accounts_email ON accounts (email);

-- The new column, filled by the backfill.
ALTER TABLE accounts
    ADD COLUMN email_normalized TEXT;
