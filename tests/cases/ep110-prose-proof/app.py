print("Does the page load?")
