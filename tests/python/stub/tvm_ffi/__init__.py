"""A stand-in for TileLang's `tvm_ffi`, written for tilesched's tests: a global
function table with the two calls tilesched.tilelang uses
(register_global_func with override, get_global_func with allow_missing)."""

_table = {}


def register_global_func(name, f=None, override=False):
    def register(function):
        if name in _table and not override:
            raise ValueError(f"global function {name} is already registered")
        _table[name] = function
        return function

    return register if f is None else register(f)


def get_global_func(name, allow_missing=False):
    if name not in _table and not allow_missing:
        raise ValueError(f"global function {name} is not registered")
    return _table.get(name)


def remove_global_func(name):
    _table.pop(name, None)
