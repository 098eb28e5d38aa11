def create(email):
    return email.strip().lower()
