def upload(data, send):
    send(data)
    return True
