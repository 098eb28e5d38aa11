CREATE TABLE users (id int);
CREATE TABLE users_old (id int);
