def signup(email):
    return email.lower()
