# Imports tilesched cannot follow are errors at the import, but only when the
# file reads a name they bind (and has no kernel of its own).
import pytest
import torch

from _no_such_module import scale  # expected-error col 1 {{cannot import 'scale' from '_no_such_module': no file _no_such_module.py next to import_missing_module.py; tilesched reads kernel factories from modules in the same folder as the compiled file}}
from _also_missing import never_used
from .package_module import relative_factory  # expected-error col 1 {{package-relative imports ('from .package_module import relative_factory') are not supported yet; import the module by its plain name from the same folder ('from package_module import relative_factory')}}


@pytest.mark.parametrize("n", [256])
def test_scale(n):
    prim = scale(n, 3.0)
    other = relative_factory(n)
