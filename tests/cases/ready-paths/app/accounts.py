def signup():
    return True
