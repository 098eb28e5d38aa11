def migrate():
    pass
