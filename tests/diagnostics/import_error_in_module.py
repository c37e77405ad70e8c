# An error inside an imported module's factory carries that module's path,
# line and column; the note at the call says where the values came from.
from _import_error_lib import broken_copy, helper_with_assert


def test_broken():
    prim = broken_copy(256)  # expected-note col 12 {{factory 'broken_copy' takes N=256 from its call at line 7; -D NAME=VALUE overrides them}}
