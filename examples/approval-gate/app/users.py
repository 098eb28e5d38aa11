def find_user(db, email):
    return db.execute("SELECT id FROM users_old WHERE email = ?", (email,)).fetchone()
