def test_accounts():
    assert True
