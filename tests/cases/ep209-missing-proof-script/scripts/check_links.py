print("links ok")
