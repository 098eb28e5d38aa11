"""The app: a handler and its helpers (evidence for the bad references of ep014)."""


def handler(request):
    return respond(request)


def respond(request):
    return {"status": 200, "body": request}
