import tilelang.language as T

SIZES = (1, 2]  # expected-error col 14 {{closing parenthesis ']' does not match opening parenthesis '('}}
OTHER = 3)  # expected-error col 10 {{unmatched ')'}}
