import tilelang.language as T

X = 1 $ 2  # expected-error col 7 {{invalid character '$' in source}}
Y = 1 \ 2  # expected-error col 7 {{unexpected character after line continuation character}}
