import tilelang.language as T


def kernel(N=4):
    x = 1
  y = 2  # expected-error col 3 {{unindent does not match any outer indentation level}}
    return x
