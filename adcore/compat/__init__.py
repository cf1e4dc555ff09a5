"""Running code written for other automatic-differentiation libraries on adcore (``compat.autograd``)."""

import sys


def autograd_alias_installed():
    """Whether the autograd alias serves ``import autograd`` (``adcore.compat.autograd.install``); it is
    not imported to tell."""
    alias = sys.modules.get("adcore.compat.autograd")
    return alias is not None and alias.installed()
