def test_health():
    pass
