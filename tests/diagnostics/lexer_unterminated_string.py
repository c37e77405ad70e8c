# A lexical error anywhere in the file stops the compile before elaboration.
import tilelang.language as T

NAME = "unterminated  # expected-error col 8 {{unterminated string literal}}
