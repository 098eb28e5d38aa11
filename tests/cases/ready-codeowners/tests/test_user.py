def test_user():
    assert True
