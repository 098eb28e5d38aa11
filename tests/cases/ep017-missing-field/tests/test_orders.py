def test_import():
    pass
