# A file without a @T.prim_func is an error without a location.
import tilelang.language as T


def helper(n):
    return n

# expected-error@none {{no @T.prim_func kernel found in this file}}
