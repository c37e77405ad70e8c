# Modules that import each other load once each (no endless loop). A name the
# cycle leaves undefined is an error where a compiled factory uses it; the
# other factory compiles.
from _import_cycle_a import double_rows
from _import_cycle_b import tiled_copy


def test_both():
    double_rows(1024)  # expected-note col 5 {{factory 'double_rows' takes N=1024 from its call at line 9; -D NAME=VALUE overrides them}}
    tiled_copy(1024)  # expected-note col 5 {{factory 'tiled_copy' takes N=1024 from its call at line 10; -D NAME=VALUE overrides them}}
