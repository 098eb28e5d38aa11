def send(message):
    return message
