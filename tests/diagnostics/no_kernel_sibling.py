# A test file without a kernel of its own, importing only a host helper of
# the sibling module that holds one: the error names that module's file.
from _import_scale_lib import ref_program  # expected-note col 1 {{'ref_program' comes from _import_scale_lib.py next to this file; if the kernels are there, run tilesched on that file}}


def test_reference():
    assert ref_program is not None

# expected-error@none {{no @T.prim_func kernel found in this file}}
