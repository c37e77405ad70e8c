import tilelang.language as T

DOC = """never closed

@T.prim_func
def main():
    pass

# expected-error@3 col 7 {{unterminated triple-quoted string literal}}
