# Accounts in Ruby: the definition-line heuristic has no nesting.
class Accounts
  def create(email, name)
    { email: email, name: name }
  end
end
