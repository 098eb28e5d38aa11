CREATE TABLE users (
    id integer PRIMARY KEY,
    email text NOT NULL
);

CREATE TABLE users_old (
    id integer PRIMARY KEY,
    email text
);
