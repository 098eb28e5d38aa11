-- The accounts table as it is today: email is not unique.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL,
    name TEXT NOT NULL
);
CREATE INDEX accounts_email ON accounts (email);
