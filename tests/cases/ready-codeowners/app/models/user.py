class User:
    email = None
