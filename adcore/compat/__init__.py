"""Running code written for other automatic-differentiation libraries on adcore (``compat.autograd``)."""
