"""A numba kernel module's functions run as the plain Python they are written in.

Compiling a kernel on a fresh install costs seconds; a tiny instance is answered by the same
code in plain Python before compilation would end.  :func:`plain_module` gives the module's
functions with every call to another kernel made plain too (a numba dispatcher called from
Python would compile itself).  Only kernels written in the Python subset both run the same
way qualify: no numba intrinsics, and integer arithmetic that stays in int64.
"""

from __future__ import annotations

import types
from typing import Any

_PLAIN: dict[Any, Any] = {}  # python function -> its plain copy


def plain_function(kernel: Any) -> Any:
    """The Python function behind the numba dispatcher ``kernel``, its kernel calls made plain."""
    func = kernel.py_func
    if func in _PLAIN:
        return _PLAIN[func]
    namespace = dict(func.__globals__)
    copy = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__)
    _PLAIN[func] = copy
    for name in func.__code__.co_names:
        if hasattr(namespace.get(name), "py_func"):
            namespace[name] = plain_function(namespace[name])
    return copy


def plain_module(module: types.ModuleType) -> types.SimpleNamespace:
    """The module's names, its numba kernels replaced by :func:`plain_function` copies."""
    names = {name: getattr(module, name) for name in dir(module) if not name.startswith("__")}
    return types.SimpleNamespace(
        **{name: plain_function(value) if hasattr(value, "py_func") else value for name, value in names.items()}
    )
