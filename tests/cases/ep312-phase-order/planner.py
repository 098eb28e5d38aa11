def extract():
    return 1


def old():
    return 2
